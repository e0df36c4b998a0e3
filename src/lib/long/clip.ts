import { basename } from 'node:path';
import type { AudioCodec, Input, InputAudioTrack, InputTrack, InputVideoTrack, MetadataTags, Rotation, VideoCodec } from 'mediabunny';
import { platform } from '#platform';
import { JoinError } from '../../errors.js';

/** One input of a join, opened: its tracks and what must match across inputs. */
export interface Clip {
  path: string;
  input: Input;
  video: InputVideoTrack;
  audio: InputAudioTrack | null;
  /** End of the clip on its own timeline: the later of its video and audio ends (computeDuration, edit lists applied). */
  durationSeconds: number;
  /** `kind` is mediabunny's codec name ('avc'), for the output track; `config.codec` the full one ('avc1.4d4032'). */
  videoSettings: { config: VideoDecoderConfig; kind: VideoCodec; width: number; height: number; rotation: Rotation };
  audioSettings: { config: AudioDecoderConfig; kind: AudioCodec } | null;
  tags: MetadataTags;
}

/**
 * Read cache per open input. A join reads each file front to back, so a small cache loses nothing; mediabunny's
 * 8 MiB default cost about 20 MB more peak RSS in bench/join.ts.
 */
const READ_CACHE_BYTES = 2 * 1024 * 1024;

/** Open `path` for reading; the caller disposes `clip.input`. Throws {@link JoinError} for anything but an MP4/MOV with video. */
export async function openClip(path: string): Promise<Clip> {
  const { ALL_FORMATS, FilePathSource, Input } = await platform.loadMediabunny();
  const input = new Input({ source: new FilePathSource(path, { maxCacheSize: READ_CACHE_BYTES }), formats: ALL_FORMATS });
  try {
    const video = await input.getPrimaryVideoTrack().catch(() => null);
    if (!video) throw new JoinError(path, `${basename(path)} cannot be joined: it is not an MP4 with a video track.`);
    const audio = await input.getPrimaryAudioTrack();
    const videoConfig = await video.getDecoderConfig();
    const videoKind = await video.getCodec();
    const audioConfig = audio ? await audio.getDecoderConfig() : null;
    const audioKind = audio ? await audio.getCodec() : null;
    if (!videoConfig || !videoKind || (audio && (!audioConfig || !audioKind))) {
      throw new JoinError(path, `${basename(path)} cannot be joined: the codec of one of its tracks is unknown.`);
    }
    return {
      path,
      input,
      video,
      audio,
      durationSeconds: await input.computeDuration(audio ? [video, audio] : [video]),
      videoSettings: {
        config: videoConfig,
        kind: videoKind,
        width: await video.getCodedWidth(),
        height: await video.getCodedHeight(),
        rotation: await video.getRotation(),
      },
      audioSettings: audio && audioConfig && audioKind ? { config: audioConfig, kind: audioKind } : null,
      tags: await input.getMetadataTags(),
    };
  } catch (error) {
    input.dispose();
    if (error instanceof JoinError) throw error;
    throw new JoinError(path, `${basename(path)} cannot be read as an MP4: ${(error as Error).message}`);
  }
}

/**
 * Packets a join copies from a track: all but those that start before 0 (an AAC encoder's priming packet and other
 * pre-roll, which the source's edit list hides; copied into the middle of a joined file they would play).
 */
export async function* keptPackets(track: InputTrack, metadataOnly = false) {
  const { EncodedPacketSink } = await platform.loadMediabunny();
  for await (const packet of new EncodedPacketSink(track).packets(undefined, undefined, { metadataOnly })) {
    if (packet.timestamp >= 0) yield packet;
  }
}

/** How many packets of the track a join copies, and whether the first of them is a keyframe. */
export async function countKeptPackets(track: InputTrack): Promise<{ count: number; startsWithKey: boolean }> {
  let count = 0;
  let startsWithKey = false;
  for await (const packet of keptPackets(track, true)) {
    if (count === 0) startsWithKey = packet.type === 'key';
    count += 1;
  }
  return { count, startsWithKey };
}

const bytesOf = (a: AllowSharedBufferSource) =>
  ArrayBuffer.isView(a) ? new Uint8Array(a.buffer, a.byteOffset, a.byteLength) : new Uint8Array(a);
const sameBytes = (a: AllowSharedBufferSource | undefined, b: AllowSharedBufferSource | undefined) =>
  a === undefined || b === undefined ? a === b : Buffer.compare(bytesOf(a), bytesOf(b)) === 0;

/**
 * What differs between `clip` and `first` that one MP4 track cannot hold: an MP4 track has a single sample
 * description, so codec, coded size and decoder configuration (SPS/PPS, AudioSpecificConfig) must be identical.
 */
export function differences(first: Clip, clip: Clip): string[] {
  const found: string[] = [];
  const compare = (what: string, mine: unknown, theirs: unknown) => {
    if (mine !== theirs) found.push(`${what}: ${String(mine)} (first input: ${String(theirs)})`);
  };
  const v = clip.videoSettings;
  const v0 = first.videoSettings;
  compare('video codec', v.config.codec, v0.config.codec);
  compare('video size', `${v.width}x${v.height}`, `${v0.width}x${v0.height}`);
  compare('video rotation', v.rotation, v0.rotation);
  if (v.config.codec === v0.config.codec && !sameBytes(v.config.description, v0.config.description)) {
    found.push('video decoder configuration (SPS/PPS) differs from the first input');
  }
  const a = clip.audioSettings?.config;
  const a0 = first.audioSettings?.config;
  if (!a || !a0) {
    compare('audio track', a ? 'present' : 'absent', a0 ? 'present' : 'absent');
    return found;
  }
  compare('audio codec', a.codec, a0.codec);
  compare('audio sample rate', `${a.sampleRate} Hz`, `${a0.sampleRate} Hz`);
  compare('audio channels', a.numberOfChannels, a0.numberOfChannels);
  if (a.codec === a0.codec && !sameBytes(a.description, a0.description)) {
    found.push('audio decoder configuration differs from the first input');
  }
  return found;
}
