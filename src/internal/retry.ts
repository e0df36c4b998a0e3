import { APIConnectionError, type APIError, APIUserAbortError, AvatarVideoError } from '../errors.js';
import { abortError } from './abort.js';
import { backoff, isNeverRetried, isRetryableReadStatus } from './retry-rules.js';
import { sleep } from './sleep.js';

// The request retry policy: what a failed request may repeat, and the delays (request retries, the wait's backoff
// after a failed poll, a download's resumes). Reads are safe to repeat; a create starts a paid job, so it is repeated
// only when the job certainly did not start: a 429 or 503, or a connection that failed before sending. Which jobs are
// made again is lib/job-policy.ts's. The rules that need no error class are internal/retry-rules.ts's.

export { backoff, isNeverRetried };

/** `read` is idempotent, `create` may start a job. */
export type RequestKind = 'read' | 'create';

/** Connection errors raised before any byte of the request left (refused, DNS, connect timeout): send.ts adds them. */
export const unsent = new WeakSet<Error>();

/** Whether an error thrown by a request of `kind` is worth trying again (and, for a create, started no job). */
export function isRetryable(kind: RequestKind, error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  // A timeout is a connection error too.
  if (error instanceof APIConnectionError) return !isNeverRetried(error.code) && (kind === 'read' || unsent.has(error));
  const status = (error as Partial<APIError> | undefined)?.status;
  if (typeof status !== 'number') return false;
  if (kind === 'create') return status === 429 || status === 503;
  return isRetryableReadStatus(status);
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

export interface RetryDelayOptions {
  /** Longest wait the caller accepts; a longer server hint means: do not retry. */
  maxRetryDelay: number;
  random?: (() => number) | undefined;
}

/** The first computed retry delay, in ms, and the longest. */
export const INITIAL_DELAY = 500;
export const MAX_COMPUTED_DELAY = 8_000;

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
    try {
      return await attempt(retry + 1);
    } catch (error) {
      if (settings.signal?.aborted && !(error instanceof AvatarVideoError)) {
        throw abortError(settings.signal, 'Request');
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
