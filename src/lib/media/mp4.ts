import { platform } from '#platform';
import { ProbeFailure, unreadable, unsupported } from './failure.js';
import { topLevelBoxes } from './isobmff.js';
import { checkHeaderBoxes } from './mp4-tables.js';
import type { ByteReader } from './reader.js';
import type { MediaFormat, MediaInfo } from './types.js';

/*
 * MP4/MOV through mediabunny, which reads the movie and track headers (moov at the start or the end, fragmented
 * files, edit lists, rotation) without decoding, and never reads media data. Before it runs, the top-level boxes are
 * walked and the moov and moof boxes read and checked (mp4-tables.ts). mediabunny then reads them again through its
 * own cache: serving them from memory saved one read call per file, and no time measurably.
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

/** `format` is what the brands said (`mp4` or `mov`); it names the container in messages. */
export async function probeIsobmff(reader: ByteReader, format: MediaFormat): Promise<MediaInfo> {
  await checkHeaderBoxes(reader.source, await topLevelBoxes(reader));
  const { Input, MP4, QTFF, CustomSource } = await platform.loadMediabunny();
  const { source } = reader;
  const input = new Input({
    formats: [MP4, QTFF],
    source: new CustomSource({ getSize: () => source.size, read: (start, end) => source.read(start, end - start) }),
  });
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
