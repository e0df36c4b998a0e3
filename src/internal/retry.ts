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

// ─── Re-creating a job: when generateLong (per segment) and generateBatch (per item) make a whole job again ───

/** How one try at making a job went wrong, reduced to what the policy needs. */
export type JobFailure =
  /** The create was refused before any job started (`shouldRetry('create', …)`); `throttled` for a 429. */
  | { kind: 'refused'; throttled: boolean }
  /** The job ended FAILED; `rateLimited` when its code names a rate limit. */
  | { kind: 'failed'; code: string | undefined; rateLimited: boolean }
  | { kind: 'cancelled' };

/** Jobs made for one video (a batch item, a long video's segment) before it is given up. */
export const DEFAULT_JOB_ATTEMPTS = 3;
/** Refused creates made again for one video: they cost nothing, but a service that refuses twenty is down. */
export const MAX_REFUSED_CREATES = 20;

/** Codes that name a fault of the service rather than of the inputs (the spec lists no codes but a rate limit's). */
const SERVICE_FAULT = /internal|server|unavailable|timeout|timed.?out|overload|capacity|temporar/i;

/**
 * Whether a job is made again after `failure`. A refused create started no job, so making it again cannot pay
 * twice. A job FAILED for a rate limit or a fault of the service may well succeed later. Any other FAILED job (no
 * face in the image, an unknown code) would most likely fail again on the same inputs and be paid for again, so it
 * is reported instead: the ledger or manifest lets a rerun make it once the inputs are fixed. A CANCELLED job was
 * cancelled by someone on purpose (the SDK never cancels): making it again would overrule them.
 */
export function shouldRecreate(failure: JobFailure): boolean {
  if (failure.kind === 'refused') return true;
  if (failure.kind === 'cancelled') return false;
  return failure.rateLimited || (failure.code !== undefined && SERVICE_FAULT.test(failure.code));
}

/**
 * Milliseconds to wait before making the job again, or undefined to give up, after `tries` failures of this kind
 * (refused creates, or jobs that ended, of `maxJobs` allowed); `jobMs` is the client's smoothed job duration. The delay is {@link retryDelay}'s, jitter included, so that videos that
 * failed together do not come back together. After a job ran, its schedule is counted in quarters of a job's
 * duration instead of its first delay, so the same rule suits 300 ms jobs on a mock and two-minute jobs on the
 * service. A 429 has no delay here: it taught the client's limiter, which holds the next create through the
 * Retry-After and until there is a place (as it does every re-create).
 */
export function recreateDelay(
  failure: JobFailure,
  tries: number,
  maxJobs: number,
  jobMs?: number,
  random?: () => number,
): number | undefined {
  if (!shouldRecreate(failure)) return undefined;
  if (failure.kind === 'refused' ? tries > MAX_REFUSED_CREATES : tries >= maxJobs) return undefined;
  if (failure.kind === 'refused' && failure.throttled) return 0;
  // Without a server hint, retryDelay always has a delay.
  const delay = retryDelay(tries, undefined, { maxRetryDelay: Number.POSITIVE_INFINITY, random }) as number;
  return failure.kind === 'refused' || jobMs === undefined ? delay : Math.round((delay * jobMs) / 4 / INITIAL_DELAY);
}
