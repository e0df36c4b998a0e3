import type { ConcurrencyLimiter, JobOutcome, Permit } from '../internal/concurrency-limiter.js';
import { VideoCancelledError, VideoFailedError } from './errors.js';

/** What a job's end teaches the concurrency policy: a rate-limited failure throttles, any other end shows there was room. */
export function jobOutcome(error: unknown): JobOutcome {
  if (error instanceof VideoFailedError) return error.isRateLimited ? 'throttled' : 'completed';
  if (error instanceof VideoCancelledError) return 'completed';
  return 'unknown';
}

/** Run a job's whole life (create to end) under a permit of the client's limiter. */
export async function withJobPermit<T>(limiter: ConcurrencyLimiter, signal: AbortSignal | undefined, job: () => Promise<T>): Promise<T> {
  const permit: Permit = await limiter.acquire(signal);
  try {
    const result = await job();
    permit.release('completed');
    return result;
  } catch (error) {
    permit.release(jobOutcome(error));
    throw error;
  }
}
