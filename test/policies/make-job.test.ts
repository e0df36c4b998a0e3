/**
 * makeJob's pause before making a job again, on injected time (vitest's fake timers): outside the client's limit
 * (a queue holds the place) a job FAILED for a rate limit is created again at once; under a limiter the pause is
 * waited, without a place.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VideoFailedError } from '../../src/errors.js';
import { type JobPlaces, type JobPlan, makeJob, OUTSIDE_LIMIT } from '../../src/lib/make-job.js';
import type { Video } from '../../src/schemas.js';

const video = (id: string, status: string, code?: string) =>
  ({ id, status, progress: null, error: code ? { code, message: code } : null }) as unknown as Video;

/** A plan whose first job runs 1 s and ends FAILED with `code`; every later one is COMPLETE at once. */
function planFailingOnce(code: string) {
  const created: string[] = [];
  const plan: JobPlan = {
    resume: undefined,
    create: async () => {
      created.push(`vid_${created.length + 1}`);
      return created.at(-1) as string;
    },
    wait: async (id) => {
      if (id === 'vid_1') {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        throw new VideoFailedError(video(id, 'FAILED', code));
      }
      return video(id, 'COMPLETE');
    },
    ended: async () => 1,
  };
  return { plan, created };
}

/** A limiter's places that have learnt 1 s jobs; each job runs at once. */
const LIMITER: JobPlaces = { run: (job) => job(), jobMs: 1_000 };

describe('makeJob: the pause before a job is made again', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('creates again at once after a rate-limited FAILED when a limit outside the SDK holds the place', async () => {
    const { plan, created } = planFailingOnce('rate_limit_exceeded');
    const made = makeJob(plan, { places: OUTSIDE_LIMIT, maxAttempts: 3, signal: undefined, aborted: 'aborted' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(created).toEqual(['vid_1', 'vid_2']);
    await expect(made).resolves.toMatchObject({ id: 'vid_2', status: 'COMPLETE' });
  });

  it('waits before creating again under the client’s limiter, and after a service fault outside it', async () => {
    for (const [places, code] of [
      [LIMITER, 'rate_limit_exceeded'],
      [OUTSIDE_LIMIT, 'internal_error'],
    ] as const) {
      const { plan, created } = planFailingOnce(code);
      const made = makeJob(plan, { places, maxAttempts: 3, signal: undefined, aborted: 'aborted' });
      await vi.advanceTimersByTimeAsync(1_050);
      expect(created).toEqual(['vid_1']);
      // The backoff's longest first pause, a quarter of a 1 s job or retryDelay's half second, has then passed.
      await vi.advanceTimersByTimeAsync(500);
      expect(created).toEqual(['vid_1', 'vid_2']);
      await expect(made).resolves.toMatchObject({ id: 'vid_2' });
    }
  });
});
