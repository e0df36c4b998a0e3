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

/**
 * Why one try of a webhook delivery failed; BullMQ keeps its message as the delivery job's `failedReason`. It names
 * the receiver by its origin only (a notify URL's path or query may hold a token), never the secret. A `permanent`
 * one (an address refused, a redirect, a body too large, job data that is no event) would fail again on every try:
 * its `name` is then `UnrecoverableError`, the name BullMQ looks for, so the job fails at once rather than after 15
 * tries over 9 hours. Any other (an answer other than 2xx, a lost connection, a timeout) is tried again.
 */
export class WebhookDeliveryError extends AvatarVideoError {
  override name: string = 'WebhookDeliveryError';
  /** The receiver's origin (`https://hooks.example.com`), when the notify URL was one. */
  readonly origin: string | undefined;
  /** The receiver's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** Whether no later try can succeed: BullMQ does not try it again. */
  readonly permanent: boolean;

  constructor(message: string, details: { origin?: string | undefined; status?: number | undefined; permanent: boolean; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.origin = details.origin;
    this.status = details.status;
    this.permanent = details.permanent;
    // BullMQ recognises an error not to retry by this name (its UnrecoverableError), as it recognises a rate limit by a message.
    if (details.permanent) this.name = 'UnrecoverableError';
  }
}

// Branded as the main entry's classes are, so that `instanceof` holds across this entry's ESM and CommonJS builds.
brandClasses({ QueueRateLimitError, WebhookDeliveryError });
