import type { LocalSource } from '../../internal/source.js';
import { ByteReader } from '../media/reader.js';
import { scanMp3Frames } from './mp3-frames.js';
import { planCuts, quietestFrame } from './quiet-points.js';
import type { SegmentPart } from './segment-file.js';
import type { SplitPlan, SplitSettings } from './split-plan.js';

/** Quietness is averaged over about 100 ms of frames, so that a pause between words beats a dip inside one. */
const SMOOTHING_SECONDS = 0.1;

/**
 * Plan the cuts of an MP3 at frame boundaries. Each segment is its frames alone: no ID3 tag, no Xing/LAME header
 * (whose frame count and gapless trim would be wrong for a part), so a segment measures exactly its frame count.
 *
 * Quiet points come from an energy estimated from each frame's side info (see `estimatedEnergy`), not from decoded
 * samples: Node has no MP3 decoder. It is a heuristic, checked on clean and noisy speech; where it errs, the cut is
 * still a frame boundary inside the limits.
 *
 * A segment's first frame may borrow bits from frames before the cut (the bit reservoir); a decoder then plays that
 * one frame (26 ms at 44.1 kHz, 72 ms at 8 kHz) as silence, which at a pause is what it was anyway.
 */
export async function planMp3Split(source: LocalSource, settings: SplitSettings): Promise<SplitPlan> {
  const frames = await scanMp3Frames(new ByteReader(source));
  const { samplesPerFrame, sampleRate } = frames.header;
  const framesPerSecond = sampleRate / samplesPerFrame;
  const smoothing = Math.max(1, Math.round(SMOOTHING_SECONDS * framesPerSecond));
  const count = frames.offsets.length;
  const cuts = await planCuts(count, settings.limitsIn(framesPerSecond), async (from, to) => {
    settings.checkAbort();
    return from + quietestFrame(frames.energy.slice(from, to + 1), smoothing);
  });
  const bounds = [0, ...cuts, count];
  return {
    format: 'mp3',
    segments: bounds.slice(1).map((end, i) => {
      const start = bounds[i] as number;
      return {
        startSeconds: start / framesPerSecond,
        durationSeconds: (end - start) / framesPerSecond,
        parts: frameRuns(frames, start, end),
      };
    }),
  };
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
