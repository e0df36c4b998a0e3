import { createRequire } from 'node:module';
import type { InputTrack } from 'mediabunny';

/**
 * The SDK's copy of mediabunny (its CommonJS build, which the SDK requires too): an ESM import here would load a
 * second one, which it warns of.
 */
export async function loadMediabunny(): Promise<typeof import('mediabunny')> {
  return createRequire(import.meta.url)('mediabunny');
}

/** What the join and mock tests check in an MP4, read through mediabunny (no ffprobe on CI). */
export interface Mp4Summary {
  durationSeconds: number;
  width: number;
  height: number;
  videoSeconds: number;
  audioSeconds: number;
  videoPackets: number;
  audioPackets: number;
  /** Packet timestamps in decode order, in seconds. */
  videoTimestamps: number[];
  audioTimestamps: number[];
  /** Raw metadata tags (string values only). */
  tags: Record<string, string>;
}

async function timestamps(track: InputTrack): Promise<number[]> {
  const { EncodedPacketSink } = await loadMediabunny();
  const out: number[] = [];
  for await (const packet of new EncodedPacketSink(track).packets(undefined, undefined, { metadataOnly: true })) out.push(packet.timestamp);
  return out;
}

/** Summarise an MP4 given as bytes or a path. */
export async function summarizeMp4(file: Uint8Array | string): Promise<Mp4Summary> {
  const { ALL_FORMATS, BufferSource, FilePathSource, Input } = await loadMediabunny();
  const source = typeof file === 'string' ? new FilePathSource(file) : new BufferSource(file);
  const input = new Input({ source, formats: ALL_FORMATS });
  try {
    const video = await input.getPrimaryVideoTrack();
    const audio = await input.getPrimaryAudioTrack();
    if (!video || !audio) throw new Error('expected a video and an audio track');
    const videoTimestamps = await timestamps(video);
    const audioTimestamps = await timestamps(audio);
    const tags: Record<string, string> = {};
    for (const [key, value] of Object.entries((await input.getMetadataTags()).raw ?? {})) if (typeof value === 'string') tags[key] = value;
    return {
      durationSeconds: await input.computeDuration(),
      width: await video.getDisplayWidth(),
      height: await video.getDisplayHeight(),
      videoSeconds: await video.computeDuration(),
      audioSeconds: await audio.computeDuration(),
      videoPackets: videoTimestamps.length,
      audioPackets: audioTimestamps.length,
      videoTimestamps,
      audioTimestamps,
      tags,
    };
  } finally {
    input.dispose();
  }
}

/** Top-level box types of an MP4, in file order. */
export function topLevelBoxes(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const types: string[] = [];
  for (let at = 0; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at);
    types.push(String.fromCharCode(...bytes.subarray(at + 4, at + 8)));
    at += size === 1 ? Number(view.getBigUint64(at + 8)) : size;
    if (size === 0) break;
  }
  return types;
}
