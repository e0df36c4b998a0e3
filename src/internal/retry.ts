/**
 * The retry policy, as pure functions so each rule is tested on its own.
 *
 * Reads (GET) are safe to repeat. A create (POST /v1/videos) starts a paid job, so it is repeated only
 * when the job certainly did not start: the server said 429 or 503, or the connection failed before
 * a byte of the request was sent.
 */

/** What kind of request failed: `read` is idempotent, `create` may start a job. */
export type RequestKind = 'read' | 'create';

/** How one attempt failed, reduced to what the policy needs. */
export type AttemptFailure =
  | { kind: 'status'; status: number }
  /** `sent: false` when the connection failed before any request byte left (refused, DNS, connect timeout). */
  | { kind: 'connection'; sent: boolean }
  | { kind: 'timeout'; sent: boolean }
  | { kind: 'abort' };

const RETRYABLE_READ_STATUS = new Set([408, 409, 429]);

export function shouldRetry(request: RequestKind, failure: AttemptFailure): boolean {
  switch (failure.kind) {
    case 'abort':
      return false;
    case 'status':
      if (request === 'create') return failure.status === 429 || failure.status === 503;
      return RETRYABLE_READ_STATUS.has(failure.status) || failure.status >= 500;
    case 'connection':
    case 'timeout':
      return request === 'read' || !failure.sent;
  }
}

/**
 * Milliseconds to wait from a `Retry-After` value: delay-seconds or an HTTP-date.
 * Returns undefined for a missing or unparsable value.
 */
export function parseRetryAfter(value: string | undefined | null, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP-date always names its month; this keeps Date.parse from reading '-1' as a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export interface RetryDelayOptions {
  /** Longest wait the caller accepts; a longer server hint means: do not retry. */
  maxRetryDelay: number;
  /** Source of randomness for jitter (injected by tests). */
  random?: () => number;
}

const INITIAL_DELAY = 500;
const MAX_COMPUTED_DELAY = 8_000;

/**
 * How long to wait before retry number `retry` (1 for the first retry).
 * A server hint is obeyed exactly (no jitter: the server chose it); a computed delay doubles from 0.5 s up
 * to 8 s and is jittered down by up to 25% so many clients do not retry in step.
 * Returns undefined when the server asks for more than `maxRetryDelay`: failing fast beats sleeping for minutes.
 */
export function retryDelay(retry: number, retryAfterMs: number | undefined, options: RetryDelayOptions): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs <= options.maxRetryDelay ? retryAfterMs : undefined;
  const base = Math.min(INITIAL_DELAY * 2 ** Math.max(0, retry - 1), MAX_COMPUTED_DELAY);
  const jittered = base * (1 - 0.25 * (options.random ?? Math.random)());
  return Math.min(Math.round(jittered), options.maxRetryDelay);
}
