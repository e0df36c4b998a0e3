import { MediaValidationError } from '../../errors.js';
import { checkArgument } from '../../internal/arguments.js';
import { shorten } from '../../internal/shorten.js';
import { type CutLimits, planCuts, type QuietSpan } from './quiet-points.js';
import { type SegmentPart, throwIfAborted } from './segment-file.js';

/** The options of `splitAudio`, checked and with their defaults. */
export type SplitSettings = ReturnType<typeof splitSettings>;

/** The options a split plan takes, as `splitAudio` takes them. */
export interface SplitPlanOptions {
  maxSegmentSeconds?: number | undefined;
  minSegmentSeconds?: number | undefined;
  searchWindowSeconds?: number | undefined;
  billingIncrementSeconds?: number | undefined;
}

/**
 * How much longer than its audio a segment's video may come out, and be billed: the service renders a video as long
 * as the audio to a video frame (0.042 s at 24 fps) and an AAC frame (0.023 s at 44.1 kHz), the mock's render and the
 * join measure the later of the two tracks' ends, so cuts stay 0.1 s under a multiple of the billing step.
 */
export const OUTPUT_MARGIN_SECONDS = 0.1;

export function splitSettings(options: SplitPlanOptions & { signal?: AbortSignal | undefined }) {
  const { maxSegmentSeconds: maxSeconds = 60, minSegmentSeconds: minSeconds = 1, searchWindowSeconds: windowSeconds = 10 } = options;
  const { billingIncrementSeconds: stepSeconds = 6 } = options;
  // Each on its own was checked with the call's options (internal/arguments.ts); together, every cut must be able to
  // leave at least the shortest segment on either side.
  const room = `at least twice minSegmentSeconds (${minSeconds} s), so that every cut can respect both`;
  checkArgument('splitAudio', 'maxSegmentSeconds', maxSeconds, [(max) => (max as number) >= 2 * minSeconds, room]);
  return { maxSeconds, minSeconds, windowSeconds, stepSeconds, signal: options.signal };
}

/** The limits of `settings` in whole units of `perSecond` a second, rounded so that they hold in seconds too. */
function cutLimits(settings: SplitSettings, perSecond: number): CutLimits {
  const max = Math.floor(settings.maxSeconds * perSecond + 1e-9);
  const min = Math.max(1, Math.ceil(settings.minSeconds * perSecond - 1e-9));
  // Whole units can make max < 2 * min (say, 72 ms MP3 frames); the later cut then gives way by one unit.
  return {
    max,
    min: Math.min(min, Math.floor(max / 2)),
    window: Math.max(1, Math.round(settings.windowSeconds * perSecond)),
    step: settings.stepSeconds * perSecond,
    margin: Math.ceil(OUTPUT_MARGIN_SECONDS * perSecond),
  };
}

/** A segment a split makes, by where it starts and ends in the original audio. */
export interface PlannedSegment {
  startSeconds: number;
  endSeconds: number;
}

/**
 * The segments `splitAudio` (and so `generateLong`) makes of audio lasting `durationSeconds`, given its pauses
 * (`quiet`, in seconds: a cut anywhere in one falls in the pause) and the split's options, in steps of a millisecond.
 * Without pauses it gives the segments of audio that has none, billed as any audio of that length whose pauses lie
 * out of reach: the billing is the same wherever the pauses are. Audio no longer than `maxSegmentSeconds` is one segment.
 */
export async function planSplit(
  durationSeconds: number,
  quiet: readonly PlannedSegment[],
  options: SplitPlanOptions = {},
): Promise<PlannedSegment[]> {
  const settings = splitSettings(options);
  const perSecond = 1000;
  const spans = quiet.map((span) => ({ from: Math.ceil(span.startSeconds * perSecond), to: Math.floor(span.endSeconds * perSecond) }));
  const total = Math.round(durationSeconds * perSecond);
  if (durationSeconds <= settings.maxSeconds) return [{ startSeconds: 0, endSeconds: durationSeconds }];
  const planned = await planSegments(
    settings,
    total,
    perSecond,
    (from, to) => spans.filter((s) => s.to >= from && s.from <= to),
    () => [],
  );
  return planned.map((s) => ({ startSeconds: s.startSeconds, endSeconds: s.startSeconds + s.durationSeconds }));
}

/**
 * The segments of audio `total` units long (`perSecond` of them a second: samples, or MP3 frames), cut among the
 * pauses `quiet(from, to)` finds in each search window (see `planCuts`): where each starts, how long it lasts, and the
 * bytes that make its file, `parts(start, end)`.
 */
export async function planSegments(
  settings: SplitSettings,
  total: number,
  perSecond: number,
  quiet: (from: number, to: number) => Promise<readonly QuietSpan[]> | readonly QuietSpan[],
  parts: (start: number, end: number) => SegmentPart[],
) {
  const cuts = await planCuts(total, cutLimits(settings, perSecond), async (from, to) => {
    throwIfAborted(settings.signal);
    return quiet(from, to);
  });
  const bounds = [0, ...cuts, total];
  return bounds.slice(1).map((end, i) => {
    const start = bounds[i] as number;
    return { startSeconds: start / perSecond, durationSeconds: (end - start) / perSecond, parts: parts(start, end) };
  });
}

/** The audio is a format splitAudio cannot cut (a compressed WAV): reported like any other unsupported input. */
export function unsupportedAudio(name: string, what: string, allowed: string): MediaValidationError {
  return new MediaValidationError([
    { field: 'audio_reference', code: 'unsupported_format', message: `${shorten(name)} ${what}; ${allowed}.` },
  ]);
}
