import { MediaValidationError } from '../../errors.js';
import type { CutLimits } from './quiet-points.js';
import type { SegmentPart } from './segment-file.js';

/** The options of `splitAudio`, checked, with what the format planners need from them. */
export interface SplitSettings {
  maxSeconds: number;
  minSeconds: number;
  windowSeconds: number;
  /** The limits in units of `perSecond` (samples, or MP3 frames), rounded so that they hold in seconds too. */
  limitsIn(perSecond: number): CutLimits;
  checkAbort(): void;
}

/** One planned segment: where it starts, how long it lasts, and the bytes that make its file. */
export interface PlannedSegment {
  startSeconds: number;
  durationSeconds: number;
  parts: SegmentPart[];
}

export interface SplitPlan {
  format: 'wav' | 'mp3';
  segments: PlannedSegment[];
}

export function splitSettings(
  options: { maxSegmentSeconds?: number; minSegmentSeconds?: number; searchWindowSeconds?: number },
  checkAbort: () => void,
): SplitSettings {
  const maxSeconds = options.maxSegmentSeconds ?? 60;
  const minSeconds = options.minSegmentSeconds ?? 1;
  const windowSeconds = options.searchWindowSeconds ?? 10;
  if (!(minSeconds > 0 && Number.isFinite(maxSeconds) && maxSeconds >= 2 * minSeconds)) {
    throw new RangeError(
      `splitAudio needs 0 < minSegmentSeconds and maxSegmentSeconds >= 2 * minSegmentSeconds (so that every cut can respect both); got min ${minSeconds}, max ${maxSeconds}.`,
    );
  }
  if (!(windowSeconds > 0)) throw new RangeError(`searchWindowSeconds must be positive; got ${windowSeconds}.`);
  return {
    maxSeconds,
    minSeconds,
    windowSeconds,
    limitsIn: (perSecond) => {
      const max = Math.floor(maxSeconds * perSecond + 1e-9);
      const min = Math.max(1, Math.ceil(minSeconds * perSecond - 1e-9));
      // Whole units can make max < 2 * min (say, 72 ms MP3 frames); the later cut then gives way by one unit.
      return { max, min: Math.min(min, Math.floor(max / 2)), window: Math.max(1, Math.round(windowSeconds * perSecond)) };
    },
    checkAbort,
  };
}

/** The audio is a format splitAudio cannot cut (a compressed WAV): reported like any other unsupported input. */
export function unsupportedAudio(name: string, what: string, allowed: string): MediaValidationError {
  return new MediaValidationError([{ field: 'audio_reference', code: 'unsupported_format', message: `${name} ${what}; ${allowed}.` }]);
}
