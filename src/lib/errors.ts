import { AvatarVideoError } from '../errors.js';
import type { Video } from '../schemas.js';

/**
 * Outcomes of a job seen while waiting or downloading. None is an `APIError`: every HTTP request
 * succeeded, the job itself ended badly (or not yet).
 */

const RATE_LIMIT_CODE = /rate.?limit/i;

/** The job ended FAILED. `code` and `message` come from `video.error`. */
export class VideoFailedError extends AvatarVideoError {
  override name = 'VideoFailedError';
  readonly video: Video;
  /** Machine-readable reason from `video.error.code`, when the service gave one. */
  readonly code: string | undefined;
  /** True when `code` names a rate limit: the job may succeed if created again later. */
  readonly isRateLimited: boolean;

  constructor(video: Video) {
    const code = video.error?.code || undefined;
    const reason = video.error?.message || 'no error message in the video';
    super(`Video ${video.id} failed${code ? ` (${code})` : ''}: ${reason}`);
    this.video = video;
    this.code = code;
    this.isRateLimited = code !== undefined && RATE_LIMIT_CODE.test(code);
  }
}

/** The job ended CANCELLED. */
export class VideoCancelledError extends AvatarVideoError {
  override name = 'VideoCancelledError';
  readonly video: Video;

  constructor(video: Video) {
    super(`Video ${video.id} was cancelled.`);
    this.video = video;
  }
}

/** The wait's deadline passed before the job finished. The job itself keeps running on the service. */
export class WaitTimeoutError extends AvatarVideoError {
  override name = 'WaitTimeoutError';
  /** The last state seen, or undefined when no poll succeeded. `cause` then holds the last poll's error. */
  readonly video: Video | undefined;
  /** The wait's deadline that passed (the `waitTimeout` option), in milliseconds. */
  readonly waitTimeout: number;

  constructor(id: string, video: Video | undefined, waitTimeout: number, options?: { cause?: unknown }) {
    const seen = video ? `last seen ${video.status}${typeof video.progress === 'number' ? ` at ${video.progress}%` : ''}` : 'never seen';
    super(`Video ${id} did not finish within ${waitTimeout} ms (waitTimeout; ${seen}); the job keeps running.`, options);
    this.video = video;
    this.waitTimeout = waitTimeout;
  }
}

/** `download` was asked for a video that is not COMPLETE; no content request was sent. */
export class VideoNotReadyError extends AvatarVideoError {
  override name = 'VideoNotReadyError';
  readonly video: Video;

  constructor(video: Video) {
    super(`Video ${video.id} is ${video.status}; it can be downloaded only once it is COMPLETE.`);
    this.video = video;
  }
}
