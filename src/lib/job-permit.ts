import type { ConcurrencyLimiter, JobOutcome, Permit } from '../internal/concurrency-limiter.js';
import { VideoCancelledError, VideoFailedError } from './errors.js';

/**
 * Where a job gets its place under the client's limit: the limiter itself, or a view of it that takes places
 * the way its caller does (a batch with a fixed concurrency, counting the jobs it runs).
 */
export type JobPlaces = Pick<ConcurrencyLimiter, 'acquire' | 'adopt'>;

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
