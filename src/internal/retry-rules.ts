/**
 * The retry rules that need no error class: which read answers and which connection failures are worth trying again,
 * and the one backoff curve. A leaf, so that avatar-video/bullmq's watches, which bundle it, judge a failed poll as
 * the client's own retries do (internal/retry.ts builds on it).
 */

/** Answers to a read that a later try may not get: a timeout, a conflict, a rate limit, and every 5xx. */
const RETRYABLE_READ_STATUS = new Set([408, 409, 429]);

/** Connection failures no retry can fix: a certificate to trust, a port that speaks no TLS, a proxy's refusal. */
const NOT_RETRIED: ReadonlySet<string> = new Set(['tls_certificate', 'tls_protocol', 'proxy_auth', 'proxy_refused']);

/** Whether a read answered with `status` is worth trying again. */
export function isRetryableReadStatus(status: number): boolean {
  return RETRYABLE_READ_STATUS.has(status) || status >= 500;
}

/**
 * Whether no retry can fix a connection failure of this kind (`APIConnectionError.code`: the user must act: a CA to
 * trust, the scheme, the proxy's credentials or rules); such a failure happens before the request reaches the service.
 */
export function isNeverRetried(code: string): boolean {
  return NOT_RETRIED.has(code);
}

/** Computed delays are shortened by up to this fraction, so clients that failed together do not retry in step. */
const JITTER = 0.25;

/**
 * The one backoff curve: `first` ms before try number 1, growing `factor` times a try up to `cap`, then jittered down
 * by {@link JITTER}. Requests double; a wait's polls grow gentler (lib/poll-schedule.ts).
 */
export function backoff(retry: number, first: number, cap: number, random: () => number = Math.random, factor = 2): number {
  const base = Math.min(first * factor ** Math.max(0, retry - 1), cap);
  return Math.round(base * (1 - JITTER * random()));
}
