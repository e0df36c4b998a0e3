import { AvatarVideoError } from 'avatar-video';
import { brandClasses } from '../internal/brand.js';

/**
 * Thrown by the processor when a create was refused with 429, after it paused the queue (`queue.rateLimit(delayMs)`).
 * Its message is BullMQ's own rate-limit signal, `bullmq:rateLimitExceeded`: the worker puts the job back to waiting
 * without using one of its attempts (provided the Worker has a `limiter`, as `workerDefaults` sets). No video job was
 * created.
 */
export class QueueRateLimitError extends AvatarVideoError {
  override name = 'QueueRateLimitError';
  /** How long the queue was paused, in ms: the 429's Retry-After, else the processor's `rateLimitDelay`. */
  readonly delayMs: number;

  constructor(delayMs: number) {
    // BullMQ recognises a manual rate limit by this exact message (its RATE_LIMIT_ERROR).
    super('bullmq:rateLimitExceeded');
    this.delayMs = delayMs;
  }
}

// Branded as the main entry's classes are, so that `instanceof` holds across this entry's ESM and CommonJS builds.
brandClasses({ QueueRateLimitError });
