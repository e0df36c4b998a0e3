import { APIUserAbortError, RateLimitError, VideoCancelledError, VideoFailedError } from '../errors.js';
import type { ConcurrencyBounds } from '../internal/adaptive-concurrency.js';
import type { ConcurrencyLimiter, JobOutcome } from '../internal/concurrency-limiter.js';
import { isRetryable, type JobFailure, recreateDelay } from '../internal/retry.js';
import { sleep } from '../internal/sleep.js';
import type { Video } from '../schemas.js';

/**
 * Where a job runs under the client's limit: the limiter itself, or a call's view of it (see {@link jobPlaces});
 * or {@link OUTSIDE_LIMIT}.
 */
export type JobPlaces = Pick<ConcurrencyLimiter, 'run' | 'jobMs'> & { readonly outside?: true };

/** A job outside the client's limit (`jobLimit: 'external'`, a queue limits): it takes no place, and its durations are not learnt. */
export const OUTSIDE_LIMIT: JobPlaces = { run: (job) => job(), jobMs: undefined, outside: true };

/** What a job's end teaches the concurrency policy: a rate-limited failure throttles, any other end shows there was room. */
export function limiterOutcome(error: unknown): JobOutcome {
  if (error instanceof VideoFailedError) return error.isRateLimited ? 'throttled' : 'completed';
  if (error instanceof VideoCancelledError) return 'completed';
  return 'unknown';
}

/**
 * `places` as a call sees it: its jobs held within the call's own `bounds` (a fixed `concurrency`) when it has
 * some, and `onRunning` told as each takes and gives back its place (a batch's progress counts them).
 */
export function jobPlaces(places: JobPlaces, bounds: ConcurrencyBounds | undefined, onRunning?: (delta: 1 | -1) => void): JobPlaces {
  return {
    get jobMs() {
      return places.jobMs;
    },
    run: (job, options = {}) =>
      places.run(
        async () => {
          onRunning?.(1);
          try {
            return await job();
          } finally {
            onRunning?.(-1);
          }
        },
        { ...options, bounds: options.bounds ?? bounds },
      ),
  };
}

/** How one video's job is made: the steps that differ between a batch item (its ledger) and a segment (its manifest). */
export interface JobPlan {
  /** The job an earlier run made, to wait on instead of creating one. */
  resume: string | undefined;
  /** Create the job, recording it; its id. */
  create(): Promise<string>;
  wait(jobId: string): Promise<Video>;
  /** Record a job that ended FAILED or CANCELLED; resolves to the jobs ended so far for this video. */
  ended(jobId: string, error: VideoFailedError | VideoCancelledError): Promise<number>;
}

export interface JobRun {
  places: JobPlaces;
  maxAttempts: number;
  signal: AbortSignal | undefined;
  /** Stops a wait for a place (the caller's pool has failed), not a job already made. */
  stop?: AbortSignal | undefined;
  /** Message of the APIUserAbortError when `signal` fires between jobs. */
  aborted: string;
  /**
   * Create again after a refused create (its request's retries spent). False when nothing paces the next one
   * (a job outside the client's limit) or the caller's `maxRetries` is the whole budget, as on `generate`. @default true
   */
  recreateRefused?: boolean | undefined;
}

/**
 * Make one video's job until it is COMPLETE: take up the job `plan.resume` names, else create one, and wait for it,
 * holding a place of the client's limit from create to end. Make it again after the failures and within the budgets
 * that retry.ts sets (`recreateDelay`), waiting its delay without a place of the client's limit (outside it, a
 * queue's place is held, so a rate-limited job is made again at once). Throws the last failure once they are spent.
 */
export async function makeJob(plan: JobPlan, run: JobRun): Promise<Video> {
  const waitSignal = run.stop && run.signal ? AbortSignal.any([run.signal, run.stop]) : (run.stop ?? run.signal);
  let jobId = plan.resume;
  let refused = 0;
  for (;;) {
    if (run.signal?.aborted) throw new APIUserAbortError(run.aborted, { cause: run.signal.reason });
    let started: number | undefined;
    try {
      const job = async () => {
        started = performance.now();
        jobId ??= await plan.create();
        return plan.wait(jobId);
      };
      return await run.places.run(job, { signal: waitSignal, resumed: jobId !== undefined });
    } catch (error) {
      const failure = jobFailure(error, jobId);
      if (failure === undefined || (failure.kind === 'refused' && run.recreateRefused === false)) throw error;
      const ended = failure.kind === 'refused' ? undefined : (error as VideoFailedError | VideoCancelledError);
      const tries = ended ? await plan.ended(jobId as string, ended) : ++refused;
      jobId = undefined;
      // Outside the client's limiter (a queue limits) nothing has learnt how long jobs take: this one's run says.
      const jobMs = run.places.jobMs ?? (ended && started !== undefined ? performance.now() - started : undefined);
      const delay = recreateDelay(failure, { tries, maxJobs: run.maxAttempts, jobMs, outsideLimit: run.places.outside });
      if (delay === undefined) throw error;
      if (delay > 0) await sleep(delay, run.signal, run.aborted);
    }
  }
}

/** The error as retry.ts's re-create policy sees it; undefined for one it has no say on (an abort, a 401, a wait timeout). */
function jobFailure(error: unknown, jobId: string | undefined): JobFailure | undefined {
  if (error instanceof VideoFailedError) return { kind: 'failed', code: error.code, rateLimited: error.isRateLimited };
  if (error instanceof VideoCancelledError) return { kind: 'cancelled' };
  if (jobId === undefined && isRetryable('create', error)) return { kind: 'refused', throttled: error instanceof RateLimitError };
  return undefined;
}
