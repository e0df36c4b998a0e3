import { APIConnectionError, type APIError, APIUserAbortError, AvatarVideoError } from '../errors.js';
import { sleep } from './sleep.js';

// The retry policy: every attempt count and delay of the SDK (request retries, the wait's backoff after a failed
// poll, a download's resumes, re-creating a job). Reads are safe to repeat; a create starts a paid job, so it is
// repeated only when the job certainly did not start: a 429 or 503, or a connection that failed before sending.

/** `read` is idempotent, `create` may start a job. */
export type RequestKind = 'read' | 'create';

const RETRYABLE_READ_STATUS = new Set([408, 409, 429]);

/** Connection errors raised before any byte of the request left (refused, DNS, connect timeout): send.ts adds them. */
export const unsent = new WeakSet<Error>();

/** Whether an error thrown by a request of `kind` is worth trying again (and, for a create, started no job). */
export function isRetryable(kind: RequestKind, error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  // A timeout is a connection error too.
  if (error instanceof APIConnectionError) return kind === 'read' || unsent.has(error);
  const status = (error as Partial<APIError> | undefined)?.status;
  if (typeof status !== 'number') return false;
  if (kind === 'create') return status === 429 || status === 503;
  return RETRYABLE_READ_STATUS.has(status) || status >= 500;
}

/** Milliseconds to wait from a `Retry-After` value (delay-seconds or an HTTP-date); undefined if unparsable. */
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

/** Computed delays are shortened by up to this fraction, so clients that failed together do not retry in step. */
const JITTER = 0.25;

/** The one backoff curve: `first` ms before try number 1, doubling up to `cap`, then jittered down by {@link JITTER}. */
export function backoff(retry: number, first: number, cap: number, random: () => number = Math.random): number {
  const base = Math.min(first * 2 ** Math.max(0, retry - 1), cap);
  return Math.round(base * (1 - JITTER * random()));
}

export interface RetryDelayOptions {
  /** Longest wait the caller accepts; a longer server hint means: do not retry. */
  maxRetryDelay: number;
  random?: (() => number) | undefined;
}

const INITIAL_DELAY = 500;
const MAX_COMPUTED_DELAY = 8_000;

/**
 * How long to wait before retry number `retry` (from 1) of a request or a download's resume: a server hint
 * exactly, else the `backoff` from 0.5 s up to 8 s (and `maxRetryDelay`). Undefined when the server asks for more
 * than `maxRetryDelay`: failing fast beats sleeping for minutes.
 */
export function retryDelay(retry: number, retryAfterMs: number | undefined, options: RetryDelayOptions): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs <= options.maxRetryDelay ? retryAfterMs : undefined;
  return backoff(retry, INITIAL_DELAY, Math.min(MAX_COMPUTED_DELAY, options.maxRetryDelay), options.random);
}

export interface RetrySettings extends RetryDelayOptions {
  /** Tries after the first. */
  maxRetries: number;
  signal?: AbortSignal | undefined;
  /**
   * Told of every failed attempt, the last one included, with when that attempt started (`performance.now()`);
   * awaited, and what it throws ends the call.
   */
  onFailure?: ((error: unknown, startedAt: number) => void | Promise<void>) | undefined;
  /** Told of each retry before its wait. */
  onRetry?: ((message: string) => void) | undefined;
}

/**
 * Run `attempt` (numbered from 1) until it succeeds, fails in a way `kind` must not repeat, or the budget is
 * spent, waiting `retryDelay` between tries. Not p-retry: it cannot obey `Retry-After`, and its per-call setup was
 * the busiest frame of a poll.
 */
export async function withRetries<R>(kind: RequestKind, settings: RetrySettings, attempt: (number: number) => Promise<R>): Promise<R> {
  for (let retry = 0; ; retry++) {
    const startedAt = settings.onFailure ? performance.now() : 0;
    try {
      return await attempt(retry + 1);
    } catch (error) {
      await settings.onFailure?.(error, startedAt);
      if (settings.signal?.aborted && !(error instanceof AvatarVideoError)) {
        throw new APIUserAbortError('Request was aborted.', { cause: settings.signal.reason });
      }
      if (retry >= settings.maxRetries || !isRetryable(kind, error)) throw error;
      const hint = (error as { headers?: Record<string, string> }).headers?.['retry-after'];
      const delay = retryDelay(retry + 1, parseRetryAfter(hint), settings);
      if (delay === undefined) throw error;
      settings.onRetry?.(`retrying in ${delay} ms after ${(error as Error).message}`);
      await sleep(delay, settings.signal);
    }
  }
}

/**
 * How one try at making a job (a batch item, a long video's segment) went wrong: a create refused before any job
 * started (`throttled` for a 429), or a job that ended FAILED (`rateLimited` when its code says so) or CANCELLED.
 */
export type JobFailure =
  | { kind: 'refused'; throttled: boolean }
  | { kind: 'failed'; code: string | undefined; rateLimited: boolean }
  | { kind: 'cancelled' };

/** Jobs made for one video (a batch item, a long video's segment) before it is given up. */
export const DEFAULT_JOB_ATTEMPTS = 3;
/** Refused creates made again for one video: they cost nothing, but a service that refuses twenty is down. */
export const MAX_REFUSED_CREATES = 20;

/** Codes that name a fault of the service rather than of the inputs (the spec lists no codes but a rate limit's). */
const SERVICE_FAULT = /internal|server|unavailable|timeout|timed.?out|overload|capacity|temporar/i;

/**
 * Whether a job is made again after `failure`: a refused create (no job started, none paid), or a job FAILED for a
 * rate limit or a fault of the service. Any other FAILED job would most likely fail again on the same inputs and
 * be paid for again, so it is reported; a CANCELLED one was cancelled on purpose (the SDK never cancels).
 */
export function shouldRecreate(failure: JobFailure): boolean {
  if (failure.kind === 'refused') return true;
  if (failure.kind === 'cancelled') return false;
  return failure.rateLimited || (failure.code !== undefined && SERVICE_FAULT.test(failure.code));
}

/** What `recreateDelay` weighs besides the failure. */
export interface RecreateContext {
  /** Failures of this kind so far: refused creates, or jobs that ended. */
  tries: number;
  /** Jobs made for one video before it is given up. */
  maxJobs: number;
  /** The smoothed job duration, in ms, when known. */
  jobMs?: number | undefined;
  /** The job's place is a limit outside the SDK (a queue's global concurrency), held through the re-create. */
  outsideLimit?: boolean | undefined;
  random?: (() => number) | undefined;
}

/**
 * Milliseconds to wait before making the job again, or undefined to give up. After a job ran, the backoff counts
 * in quarters of `jobMs`, to suit 300 ms mock jobs and two-minute real ones. No delay after a 429: the client's
 * limiter holds the next create through its Retry-After. None either after a job FAILED for a rate limit when a
 * limit outside the SDK holds its place: that limit paces the account's jobs, and a pause would only leave its
 * place idle while the queue's other jobs wait.
 */
export function recreateDelay(failure: JobFailure, { tries, maxJobs, jobMs, outsideLimit, random }: RecreateContext): number | undefined {
  if (!shouldRecreate(failure)) return undefined;
  if (failure.kind === 'refused' ? tries > MAX_REFUSED_CREATES : tries >= maxJobs) return undefined;
  if (failure.kind === 'refused' && failure.throttled) return 0;
  if (failure.kind === 'failed' && failure.rateLimited && outsideLimit) return 0;
  const delay = backoff(tries, INITIAL_DELAY, MAX_COMPUTED_DELAY, random);
  return failure.kind === 'refused' || jobMs === undefined ? delay : Math.round((delay * jobMs) / 4 / INITIAL_DELAY);
}
