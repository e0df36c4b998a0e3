import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  RateLimitError,
  VideoCancelledError,
  VideoFailedError,
} from '../errors.js';
import type { JobOutcome } from '../internal/concurrency-limiter.js';
import type { CreateAnswer } from '../internal/create-gate.js';
import { backoff, INITIAL_DELAY, isRetryable, MAX_COMPUTED_DELAY, parseRetryAfter, retryDelay } from '../internal/retry.js';
import { isServiceFault } from './service-fault.js';

// Which jobs are made again, and when: the job runner's policy (lib/job-runner.ts), as pure functions. A create that
// started no job is sent again at no cost; a job that ran is made again only when its failure was not the inputs'.

/**
 * How one try at making a job went wrong: a create refused before any job started (`throttled` for a 429, with the
 * server's `Retry-After` in ms; `unreached` when no connection opened: `'refused'` for a refusal, no DNS answer or no
 * route, `'timed-out'` when opening it took the whole connect timeout), or a job that ended FAILED (`rateLimited` when
 * its code says so) or CANCELLED.
 */
export type JobFailure =
  | { kind: 'refused'; throttled: boolean; retryAfterMs: number | undefined; unreached?: 'refused' | 'timed-out' }
  | { kind: 'failed'; code: string | undefined; rateLimited: boolean }
  | { kind: 'cancelled' };

/** Jobs made for one video (a `generate`, a batch item, a long video's segment) before it is given up. */
export const DEFAULT_JOB_ATTEMPTS = 3;
/** Refused creates made again for one video: they cost nothing, but a service that refuses twenty is down. */
export const MAX_REFUSED_CREATES = 20;
/**
 * Creates made again for one video after no connection opened: a blip heals within a try or two, and a dead or stale
 * base URL (the likeliest first mistake) then fails in seconds, as a bare request does, not after twenty tries.
 */
export const MAX_UNREACHED_CREATES = 2;

/**
 * `error` as the re-create policy sees it, thrown while making job `jobId` (undefined before a create was answered);
 * undefined for an error it has no say on (an abort, a 401, a wait timeout, a create that may have reached the service).
 */
export function jobFailure(error: unknown, jobId: string | undefined): JobFailure | undefined {
  if (error instanceof VideoFailedError) return { kind: 'failed', code: error.code, rateLimited: error.isRateLimited };
  if (error instanceof VideoCancelledError) return { kind: 'cancelled' };
  if (jobId !== undefined || !isRetryable('create', error)) return undefined;
  if (error instanceof APIConnectionError) {
    const unreached = error instanceof APIConnectionTimeoutError ? 'timed-out' : 'refused';
    return { kind: 'refused', throttled: false, retryAfterMs: undefined, unreached };
  }
  const hint = (error as { headers?: Record<string, string> }).headers?.['retry-after'];
  return { kind: 'refused', throttled: error instanceof RateLimitError, retryAfterMs: parseRetryAfter(hint) };
}

/**
 * Whether a job is made again after `failure`: a refused create (no job started, none paid), or a job FAILED for a
 * rate limit or a fault of the service. Any other FAILED job would most likely fail again on the same inputs and
 * be paid for again, so it is reported; a CANCELLED one was cancelled on purpose (the SDK never cancels).
 */
export function shouldRecreate(failure: JobFailure): boolean {
  if (failure.kind === 'refused') return true;
  if (failure.kind === 'cancelled') return false;
  return failure.rateLimited || isServiceFault(failure.code);
}

/** What `recreateDelay` weighs besides the failure. */
export interface RecreateContext {
  /** Failures of this kind so far: refused creates, or jobs that ended. */
  tries: number;
  /** Jobs made for one video before it is given up (`maxJobAttempts`). */
  maxJobs: number;
  /** Longest `Retry-After` the caller waits (`maxRetryDelay`): a longer one gives up at once. */
  maxRetryDelay: number;
  /** The smoothed job duration, in ms, when known. */
  jobMs?: number | undefined;
  /** The job's place is a limit outside the SDK (a queue's global concurrency), held through the re-create. */
  outsideLimit?: boolean | undefined;
  random?: (() => number) | undefined;
}

/**
 * Milliseconds to wait before making the job again, or undefined to give up. A create that opened no connection is
 * made again {@link MAX_UNREACHED_CREATES} times at most, an answered refusal {@link MAX_REFUSED_CREATES}. A create refused 429 waits nothing
 * here: the create-rate gate paces the next (its `Retry-After` included), so the two never add up; one whose
 * `Retry-After` is beyond `maxRetryDelay` gives up. Any other refused create waits the request backoff. After a job ran, the
 * backoff counts in quarters of `jobMs`, to suit 300 ms mock jobs and two-minute real ones; none after a job FAILED
 * for a rate limit when a limit outside the SDK holds its place: that limit paces the account's jobs, and a pause
 * would only leave its place idle while the queue's other jobs wait.
 */
export function recreateDelay(failure: JobFailure, context: RecreateContext): number | undefined {
  const { tries, maxJobs, maxRetryDelay, jobMs, outsideLimit, random } = context;
  if (!shouldRecreate(failure)) return undefined;
  if (failure.kind === 'refused') {
    if (tries > refusalBudget(failure.unreached)) return undefined;
    const delay = retryDelay(tries, failure.retryAfterMs, { maxRetryDelay, random });
    return failure.throttled && delay !== undefined ? 0 : delay;
  }
  if (tries >= maxJobs) return undefined;
  if (failure.kind === 'failed' && failure.rateLimited && outsideLimit) return 0;
  const delay = backoff(tries, INITIAL_DELAY, MAX_COMPUTED_DELAY, random);
  return jobMs === undefined ? delay : Math.round((delay * jobMs) / 4 / INITIAL_DELAY);
}

/**
 * Refused creates made again for one video: twenty answered refusals, two when no connection opened, none when opening
 * one took the whole connect timeout (10 s: a second would pass the 15 s a call that cannot connect is given).
 */
function refusalBudget(unreached: 'refused' | 'timed-out' | undefined): number {
  if (unreached === undefined) return MAX_REFUSED_CREATES;
  return unreached === 'refused' ? MAX_UNREACHED_CREATES : 0;
}

/**
 * What the create-rate gate hears of a create that failed with `error`: a 429 (`throttled`), a refusal or a failure
 * before it was sent that made no job (`released`: an error answer, or unsent), or one that may have made a job.
 */
export function createAnswer(error: unknown): CreateAnswer {
  if (error instanceof RateLimitError) return 'throttled';
  if (error instanceof APIError && error.status !== undefined) return 'released';
  return isRetryable('create', error) ? 'released' : 'unknown';
}

/** What a job's end teaches the concurrency policy: a rate-limited failure throttles, any other end shows there was room. */
export function limiterOutcome(error: unknown): JobOutcome {
  if (error instanceof VideoFailedError) return error.isRateLimited ? 'throttled' : 'completed';
  if (error instanceof VideoCancelledError) return 'completed';
  return 'unknown';
}
