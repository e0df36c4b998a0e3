import type { CustomSource } from 'mediabunny';
import { loadMediabunny } from '../../internal/mediabunny.js';
import type { LocalSource } from '../../internal/source.js';
import { ProbeFailure, unreadable, unsupported } from './failure.js';
import { type BoxRange, topLevelBoxes } from './isobmff.js';
import { checkFragmentRuns, checkMovieTables } from './mp4-tables.js';
import { type ByteReader, u32be } from './reader.js';
import type { MediaInfo } from './types.js';

/*
 * MP4/MOV through mediabunny, which reads the movie and track headers (moov at the start or the end, fragmented
 * files, edit lists, rotation) without decoding. Before it runs, the top-level boxes are walked and the moov and
 * moof boxes read and checked (mp4-tables.ts); mediabunny is then served those boxes from memory and reads anything
 * else it wants through LocalSource.read, so media data is never read.
 */

const AUDIO_CODEC_NAMES: Record<string, string> = {
  aac: 'AAC',
  mp3: 'MP3',
  opus: 'Opus',
  vorbis: 'Vorbis',
  flac: 'FLAC',
  ac3: 'AC-3',
  eac3: 'E-AC-3',
  dts: 'DTS',
  ulaw: 'G.711',
  alaw: 'G.711',
};
/** Larger than any movie header of a clip that could be accepted (a 60 s moov is tens of KB). */
const MAX_HEADER_BOX = 64 * 1024 * 1024;

export async function probeIsobmff(reader: ByteReader, format: 'mp4' | 'mov'): Promise<MediaInfo> {
  const { moov, moofs } = await topLevelBoxes(reader);
  const headers = await readHeaderBoxes(
    reader.source,
    [moov, ...moofs].sort((a, b) => a.at - b.at),
  );
  checkMovieTables(payload(headers.get(moov.at)), reader.size);
  checkFragmentRuns(moofs.map((moof) => payload(headers.get(moof.at))));
  const mediabunny = await loadMediabunny();
  const { Input, MP4, QTFF } = mediabunny;
  const input = new Input({ formats: [MP4, QTFF], source: cachedSource(mediabunny.CustomSource, reader.source, headers) });
  try {
    const video = await input.getPrimaryVideoTrack();
    const audioTracks = await input.getAudioTracks();
    const container = format === 'mov' ? 'a QuickTime (MOV) container' : 'an MP4 container';
    if (!video) {
      const codec = audioTracks[0] ? await audioTracks[0].getCodec() : undefined;
      if (codec === undefined) throw unsupported(`${container} without a video track`);
      const name = codec === null ? '' : (AUDIO_CODEC_NAMES[codec] ?? (codec.startsWith('pcm') ? 'PCM' : codec));
      throw unsupported(`${name ? `${name} audio` : 'audio'} in ${container} with no video track`);
    }
    // Presentation length: from the earliest start (negative starts, e.g. AAC priming, are not shown) to the latest end.
    const duration = (await input.computeDuration()) - Math.max(0, await input.getFirstTimestamp());
    if (!Number.isFinite(duration) || duration < 0) throw unreadable('its tracks give no usable duration');
    // Display size: after rotation and pixel aspect ratio, what a viewer sees.
    const width = Math.round(await video.getDisplayWidth());
    const height = Math.round(await video.getDisplayHeight());
    if (!(width > 0 && height > 0)) throw unreadable(`its video track gives no usable size (${width}x${height})`);
    return { kind: 'video', format, durationSeconds: duration, width, height, hasAudio: audioTracks.length > 0 };
  } catch (error) {
    if (error instanceof ProbeFailure) throw error;
    throw unreadable(`its movie structure could not be parsed (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    input.dispose();
  }
}

/** The moov and moof boxes, whole, by file offset. */
async function readHeaderBoxes(source: LocalSource, boxes: BoxRange[]): Promise<Map<number, Uint8Array>> {
  const read = new Map<number, Uint8Array>();
  for (const box of boxes) {
    if (box.size > MAX_HEADER_BOX)
      throw unreadable(`its "${box.type}" box is ${box.size.toLocaleString('en-US')} bytes, too large to be a header`);
    read.set(box.at, await source.read(box.at, box.size));
  }
  return read;
}

/** A box's contents after its 8- or 16-byte header. */
const payload = (box: Uint8Array | undefined) => (box ? box.subarray(u32be(box, 0) === 1 ? 16 : 8) : new Uint8Array(0));

/** A mediabunny source that answers from the boxes already in memory and reads the rest from the file. */
function cachedSource(Custom: typeof CustomSource, source: LocalSource, boxes: Map<number, Uint8Array>): CustomSource {
  const starts = [...boxes.keys()]; // in file order
  return new Custom({
    getSize: () => source.size,
    read: (start, end) => {
      // The last cached box starting at or before `start` is the only one that can contain the range.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if ((starts[mid] ?? 0) <= start) lo = mid;
        else hi = mid - 1;
      }
      const at = starts[lo] ?? 0;
      const box = boxes.get(at);
      if (box && at <= start && end <= at + box.length) return box.subarray(start - at, end - at);
      return source.read(start, end - start);
    },
  });
}
