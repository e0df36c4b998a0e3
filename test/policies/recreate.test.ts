/** The re-create policy of retry.ts: which failed jobs generateLong and generateBatch make again, when, and how often. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_JOB_ATTEMPTS, MAX_REFUSED_CREATES, recreateDelay, retryDelay, shouldRecreate } from '../../src/internal/retry.js';

const failed = (code: string | undefined, rateLimited = false) => ({ kind: 'failed' as const, code, rateLimited });
const refused = (throttled: boolean) => ({ kind: 'refused' as const, throttled });

describe('re-creating a job', () => {
  it('makes again a refused create and a job FAILED for a rate limit or a fault of the service', () => {
    expect(shouldRecreate(refused(true))).toBe(true);
    expect(shouldRecreate(refused(false))).toBe(true);
    expect(shouldRecreate(failed('rate_limit_exceeded', true))).toBe(true);
    for (const code of ['internal_error', 'server_error', 'service_unavailable', 'render_timeout', 'Overloaded']) {
      expect(shouldRecreate(failed(code))).toBe(true);
    }
  });

  it('reports instead a job that would fail again on the same inputs, one of unknown cause, and a cancelled one', () => {
    for (const code of ['face_not_found', 'invalid_audio', 'content_policy', undefined]) expect(shouldRecreate(failed(code))).toBe(false);
    expect(shouldRecreate({ kind: 'cancelled' })).toBe(false);
    expect(recreateDelay(failed('face_not_found'), { tries: 1, maxJobs: 10 })).toBeUndefined();
  });

  it('waits retryDelay’s delay, jitter included; after a job ran, counted in quarters of a job’s duration', () => {
    for (const tries of [1, 2, 3, 6]) {
      for (const random of [() => 0, () => 1]) {
        const seconds = retryDelay(tries, undefined, { maxRetryDelay: 1e9, random }) as number;
        expect(recreateDelay(refused(false), { tries, maxJobs: 10, random })).toBe(seconds);
        expect(recreateDelay(failed('internal_error'), { tries, maxJobs: 10, random })).toBe(seconds);
        // 2 s jobs: the first delay is half a second, as retryDelay's; 300 ms jobs: 75 ms.
        expect(recreateDelay(failed('internal_error'), { tries, maxJobs: 10, jobMs: 2_000, random })).toBe(seconds);
        expect(recreateDelay(failed('internal_error'), { tries, maxJobs: 10, jobMs: 300, random })).toBe(
          Math.round((seconds * 300) / 2_000),
        );
      }
    }
    expect(recreateDelay(failed('x', true), { tries: 1, maxJobs: 10, jobMs: 300, random: () => 0 })).toBe(75);
    expect(recreateDelay(failed('x', true), { tries: 2, maxJobs: 10, jobMs: 120_000, random: () => 0 })).toBe(60_000);
    expect(recreateDelay(failed('x', true), { tries: 2, maxJobs: 10, jobMs: 120_000, random: () => 1 })).toBe(45_000);
  });

  it('leaves a refused create’s pacing to the client’s limiter, which heard of the 429', () => {
    expect(recreateDelay(refused(true), { tries: 3, maxJobs: 10 })).toBe(0);
  });

  it('makes a job FAILED for a rate limit again at once when a limit outside the SDK holds its place', () => {
    for (const random of [() => 0, () => 1]) {
      expect(recreateDelay(failed('rate_limit_exceeded', true), { tries: 1, maxJobs: 3, outsideLimit: true, random })).toBe(0);
      // A fault of the service is still waited out: the outside limit says nothing of when it heals.
      expect(recreateDelay(failed('internal_error'), { tries: 1, maxJobs: 3, outsideLimit: true, random })).toBeGreaterThan(0);
      expect(recreateDelay(failed('rate_limit_exceeded', true), { tries: 1, maxJobs: 3, random })).toBeGreaterThan(0);
    }
    // The budget of jobs holds all the same.
    expect(recreateDelay(failed('rate_limit_exceeded', true), { tries: 3, maxJobs: 3, outsideLimit: true })).toBeUndefined();
  });

  it('stops after maxJobs jobs, and after MAX_REFUSED_CREATES refused creates made again', () => {
    expect(DEFAULT_JOB_ATTEMPTS).toBe(3);
    expect(recreateDelay(failed('x', true), { tries: DEFAULT_JOB_ATTEMPTS - 1, maxJobs: DEFAULT_JOB_ATTEMPTS })).toBeDefined();
    expect(recreateDelay(failed('x', true), { tries: DEFAULT_JOB_ATTEMPTS, maxJobs: DEFAULT_JOB_ATTEMPTS })).toBeUndefined();
    // Refusals started no job: they do not spend maxJobs.
    for (const throttled of [true, false]) {
      expect(recreateDelay(refused(throttled), { tries: MAX_REFUSED_CREATES, maxJobs: 1 })).toBeDefined();
      expect(recreateDelay(refused(throttled), { tries: MAX_REFUSED_CREATES + 1, maxJobs: 1 })).toBeUndefined();
    }
  });
});
