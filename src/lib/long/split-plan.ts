import { MediaValidationError } from '../../errors.js';
import { checkArgument } from '../../internal/arguments.js';
import { shorten } from '../../internal/shorten.js';
import { planCuts } from './quiet-points.js';
import { type SegmentPart, throwIfAborted } from './segment-file.js';

/** The options of `splitAudio`, checked and with their defaults. */
export type SplitSettings = ReturnType<typeof splitSettings>;

export function splitSettings(options: {
  maxSegmentSeconds?: number;
  minSegmentSeconds?: number;
  searchWindowSeconds?: number;
  signal?: AbortSignal;
}) {
  const { maxSegmentSeconds: maxSeconds = 60, minSegmentSeconds: minSeconds = 1, searchWindowSeconds: windowSeconds = 10 } = options;
  // Each on its own was checked with the call's options (internal/arguments.ts); together, every cut must be able to
  // leave at least the shortest segment on either side.
  const room = `at least twice minSegmentSeconds (${minSeconds} s), so that every cut can respect both`;
  checkArgument('splitAudio', 'maxSegmentSeconds', maxSeconds, [(max) => (max as number) >= 2 * minSeconds, room]);
  return { maxSeconds, minSeconds, windowSeconds, signal: options.signal };
}

/**
 * The segments of audio `total` units long (`perSecond` of them a second: samples, or MP3 frames), cut at
 * `quietest(from, to)` within each search window (see `planCuts`): where each starts, how long it lasts, and the
 * bytes that make its file, `parts(start, end)`.
 */
export async function planSegments(
  settings: SplitSettings,
  total: number,
  perSecond: number,
  quietest: (from: number, to: number) => Promise<number> | number,
  parts: (start: number, end: number) => SegmentPart[],
) {
  // The limits in whole units, rounded so that they hold in seconds too.
  const max = Math.floor(settings.maxSeconds * perSecond + 1e-9);
  const min = Math.max(1, Math.ceil(settings.minSeconds * perSecond - 1e-9));
  // Whole units can make max < 2 * min (say, 72 ms MP3 frames); the later cut then gives way by one unit.
  const limits = { max, min: Math.min(min, Math.floor(max / 2)), window: Math.max(1, Math.round(settings.windowSeconds * perSecond)) };
  const cuts = await planCuts(total, limits, async (from, to) => {
    throwIfAborted(settings.signal);
    return quietest(from, to);
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
