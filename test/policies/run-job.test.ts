/**
 * The job runner (lib/job-runner.ts) on injected time (vitest's fake timers) and an endpoints port of the test's own:
 * the pause before a job is made again (outside the client's limit a job FAILED for a rate limit is created again at
 * once; under the limiter the pause is waited, without a place), and a refused create's regime (sent once per try,
 * its Retry-After waited without a place, the limiter and `onThrottled` told first). The limiter takes no classifier:
 * all it learns of a job, the runner tells its place.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimitError, VideoFailedError } from '../../src/errors.js';
import type { Answer } from '../../src/internal/api-promise.js';
import { ConcurrencyLimiter, type JobPlace } from '../../src/internal/concurrency-limiter.js';
import { CreateGate } from '../../src/internal/create-gate.js';
import type { RequestOptions } from '../../src/internal/request-options.js';
import type { Endpoints, JobContext } from '../../src/lib/endpoints.js';
import { MAX_REFUSED_CREATES } from '../../src/lib/job-policy.js';
import { type JobPlan, type JobRun, runJob } from '../../src/lib/job-runner.js';
import type { VideoCreateParams } from '../../src/lib/media/prepare.js';
import type { Video } from '../../src/schemas.js';

const video = (id: string, status: string, code?: string) =>
  ({ id, status, progress: null, error: code ? { code, message: code } : null }) as unknown as Video;

/** A 429 as the transport throws it, with its `Retry-After` in seconds. */
const refusal = (seconds: number) =>
  Object.assign(Object.create(RateLimitError.prototype), {
    status: 429,
    message: 'too many jobs',
    headers: { 'retry-after': String(seconds) },
    retryAfter: seconds * 1000,
  }) as RateLimitError;

/**
 * Endpoints whose creates answer as `answers` says (an error to throw, else the next job), whose job `vid_1` runs 1 s
 * and ends FAILED with `code` (COMPLETE at once without one), and whose every other job is COMPLETE at once. `sent` records each create's options;
 * each create is answered `answerMs` after it was sent.
 */
function endpoints(code: string | undefined, answers: Array<Error | undefined> = [], answerMs = 0) {
  const limiter = new ConcurrencyLimiter();
  const context: JobContext = {
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    timeout: 60_000,
    maxRetryDelay: 60_000,
    limiter,
    limits: { maxAudioSeconds: 60 },
    createRate: undefined,
    createGate: new CreateGate(),
    billingIncrementSeconds: 6,
  };
  const created: string[] = [];
  const sent: RequestOptions[] = [];
  const api = {
    openCreate: async () => ({
      send: async (options: RequestOptions): Promise<Answer<Video>> => {
        sent.push(options);
        if (answerMs > 0) await new Promise((resolve) => setTimeout(resolve, answerMs));
        const answer = answers.shift();
        if (answer) throw answer;
        created.push(`vid_${created.length + 1}`);
        return { data: video(created.at(-1) as string, 'PROCESSING'), status: 201, headers: {} };
      },
      close: async () => {},
    }),
    retrieve: async (id: string): Promise<Answer<Video>> => {
      if (id !== 'vid_1' || code === undefined) return { data: video(id, 'COMPLETE'), status: 200, headers: {} };
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return { data: video(id, 'FAILED', code), status: 200, headers: {} };
    },
  } as unknown as Endpoints;
  return { api, context, limiter, created, sent };
}

const plan = (): JobPlan => ({
  resume: undefined,
  params: {} as VideoCreateParams,
  created: async () => {},
  wait: { pollInterval: 1 },
  ended: vi.fn(async () => 1),
});

const run = ({ api, context }: { api: Endpoints; context: JobContext }, extra: Partial<JobRun> = {}): JobRun => ({
  api,
  context,
  maxJobAttempts: 3,
  create: { maxRetryDelay: 60_000 },
  signal: undefined,
  aborted: 'The run',
  ...extra,
});

describe('the job runner', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('creates again at once after a rate-limited FAILED when a limit outside the SDK holds the place', async () => {
    const port = endpoints('rate_limit_exceeded');
    const { created } = port;
    const made = runJob(plan(), run(port, { jobLimit: 'external' }));
    // The job's 1 s, and the first poll's millisecond after the create's answer.
    await vi.advanceTimersByTimeAsync(1_010);
    expect(created).toEqual(['vid_1', 'vid_2']);
    await expect(made).resolves.toMatchObject({ id: 'vid_2', status: 'COMPLETE' });
  });

  it('waits before creating again under the client’s limiter, and after a service fault outside it', async () => {
    for (const [jobLimit, code] of [
      ['client', 'rate_limit_exceeded'],
      ['external', 'internal_error'],
    ] as const) {
      const port = endpoints(code);
      const { created } = port;
      const made = runJob(plan(), run(port, { jobLimit }));
      await vi.advanceTimersByTimeAsync(1_050);
      expect(created).toEqual(['vid_1']);
      // The backoff's longest first pause, a quarter of a 1 s job, has then passed.
      await vi.advanceTimersByTimeAsync(500);
      expect(created).toEqual(['vid_1', 'vid_2']);
      await expect(made).resolves.toMatchObject({ id: 'vid_2' });
    }
  });

  it('tells the limiter how each job ended, itself: a job FAILED for a rate limit cuts the limit', async () => {
    const port = endpoints('rate_limit_exceeded');
    const { limiter } = port;
    const made = runJob(plan(), run(port));
    await vi.advanceTimersByTimeAsync(1_050);
    // The job vid_1 FAILED for a rate limit after its second: the limit was cut, as a failed job cuts it.
    expect(limiter.snapshot()).toMatchObject({ running: 0, lastThrottle: { cause: 'failed' } });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(made).resolves.toMatchObject({ id: 'vid_2', status: 'COMPLETE' });
    expect(limiter.snapshot().running).toBe(0);
  });

  it('gives up after maxJobAttempts jobs, each recorded as it ended', async () => {
    const port = endpoints('rate_limit_exceeded');
    const { created } = port;
    const steps = plan();
    steps.ended = vi.fn(async () => 1);
    const made = runJob(steps, run(port, { maxJobAttempts: 1 })).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_050);
    expect(await made).toBeInstanceOf(VideoFailedError);
    expect(created).toEqual(['vid_1']);
    expect(steps.ended).toHaveBeenCalledTimes(1);
  });

  it('sends a refused create once per try, telling the limiter and onThrottled, then waits its Retry-After without a place', async () => {
    const port = endpoints(undefined, [refusal(2), refusal(2)]);
    const { limiter, created, sent } = port;
    const heard: Array<number | undefined> = [];
    const made = runJob(plan(), run(port, { onThrottled: (ms) => void heard.push(ms) }));
    await vi.advanceTimersByTimeAsync(10);
    expect(sent.map((options) => options.maxRetries)).toEqual([0]);
    expect(heard).toEqual([2_000]);
    expect(limiter.snapshot()).toMatchObject({ running: 0, lastThrottle: { cause: 'refused', retryAfterMs: 2_000 } });
    await vi.advanceTimersByTimeAsync(1_900);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(sent).toHaveLength(2);
    expect(limiter.snapshot().running).toBe(0);
    await vi.advanceTimersByTimeAsync(2_100);
    await expect(made).resolves.toMatchObject({ id: 'vid_1' });
    expect(sent.map((options) => options.maxRetries)).toEqual([0, 0, 0]);
    expect(created).toEqual(['vid_1']);
    expect(heard).toEqual([2_000, 2_000]);
  });

  it('tells the limiter of each refused create once, dated by when it was sent, up to the refused creates’ budget', async () => {
    const refusals = Array.from({ length: MAX_REFUSED_CREATES + 1 }, () => refusal(0));
    const port = endpoints(undefined, refusals, 50);
    const { limiter, sent } = port;
    const told: Array<{ retryAfter: number | undefined; sentAgo: number }> = [];
    // Each place the runner is handed, with what it is told of a refusal recorded on the way.
    const runInPlace = limiter.run.bind(limiter);
    vi.spyOn(limiter, 'run').mockImplementation((job, options) =>
      runInPlace((place) => {
        const throttled: JobPlace['throttled'] = (retryAfter, startedAt = Number.NaN) => {
          told.push({ retryAfter, sentAgo: place.now() - startedAt });
          place.throttled(retryAfter, startedAt);
        };
        return job({ ...place, throttled });
      }, options),
    );
    const made = runJob(plan(), run(port)).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(await made).toBeInstanceOf(RateLimitError);
    expect(sent).toHaveLength(MAX_REFUSED_CREATES + 1);
    // One report per refusal, each dated when its create was sent: the 50 ms before its answer.
    expect(told).toEqual(sent.map(() => ({ retryAfter: 0, sentAgo: 50 })));
  });

  it('ends as onThrottled throws, with no job made and no wait', async () => {
    const port = endpoints(undefined, [refusal(30)]);
    const { sent } = port;
    const thrown = new Error('the queue takes it from here');
    const made = runJob(plan(), run(port, { onThrottled: () => Promise.reject(thrown) })).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1);
    expect(await made).toBe(thrown);
    expect(sent).toHaveLength(1);
  });

  it('outside the limit, teaches it nothing and sleeps the Retry-After itself', async () => {
    const port = endpoints(undefined, [refusal(1)]);
    const { limiter, sent } = port;
    const made = runJob(plan(), run(port, { jobLimit: 'external' }));
    await vi.advanceTimersByTimeAsync(900);
    expect(sent).toHaveLength(1);
    expect(limiter.snapshot()).toEqual({ limit: 2, running: 0 });
    await vi.advanceTimersByTimeAsync(200);
    await expect(made).resolves.toMatchObject({ id: 'vid_1' });
    expect(sent).toHaveLength(2);
    expect(limiter.snapshot().lastThrottle).toBeUndefined();
  });
});
