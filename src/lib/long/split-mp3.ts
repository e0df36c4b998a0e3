import type { LocalSource } from '../../internal/byte-source.js';
import { ByteReader } from '../media/reader.js';
import { scanMp3Frames } from './mp3-frames.js';
import { quietFrames } from './quiet-points.js';
import type { SegmentPart } from './segment-file.js';
import { planSegments, type SplitSettings } from './split-plan.js';

/** Quietness is averaged over about 100 ms of frames, so that a pause between words beats a dip inside one. */
const SMOOTHING_SECONDS = 0.1;

/**
 * Plan the cuts of an MP3 at frame boundaries, among the quietest frames by `estimatedEnergy`. Each segment is its frames
 * alone: an ID3 tag or a Xing/LAME header (frame count, gapless trim) would be wrong for a part. A segment's first
 * frame may borrow bits from frames before the cut (the bit reservoir); a decoder then plays that one frame (26 ms at
 * 44.1 kHz, 72 ms at 8 kHz) as silence, which at a pause is what it was anyway.
 */
export async function planMp3Split(source: LocalSource, settings: SplitSettings) {
  const frames = await scanMp3Frames(new ByteReader(source));
  const framesPerSecond = frames.header.sampleRate / frames.header.samplesPerFrame;
  // At least three frames: one frame's estimate alone (72 ms at 8 kHz) dips below a pause's level inside a word.
  const smoothing = Math.max(3, Math.round(SMOOTHING_SECONDS * framesPerSecond));
  return planSegments(
    settings,
    frames.offsets.length,
    framesPerSecond,
    (from, to) => quietFrames(frames.energy.slice(from, to + 1), smoothing).map((span) => ({ from: from + span.from, to: from + span.to })),
    (start, end) => frameRuns(frames, start, end),
  );
}

/** Byte ranges of frames `[start, end)`, adjacent frames merged; damaged bytes between frames are left out. */
function frameRuns(frames: { offsets: number[]; lengths: number[] }, start: number, end: number): SegmentPart[] {
  const runs: Array<{ start: number; length: number }> = [];
  for (let i = start; i < end; i += 1) {
    const offset = frames.offsets[i] as number;
    const length = frames.lengths[i] as number;
    const last = runs.at(-1);
    if (last && last.start + last.length === offset) last.length += length;
    else runs.push({ start: offset, length });
  }
  return runs;
}
