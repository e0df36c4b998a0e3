/**
 * What a job's end teaches the client's limit, as `client.jobConcurrency` shows it: a job FAILED for a rate limit
 * cuts it, any other end shows there was room, an abort teaches nothing; the same for `createAndWait` and a batch.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { APIUserAbortError, AvatarVideo, type JobConcurrency, VideoFailedError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { mockFixture, wav } from '../helpers/media.js';

const params = { audio_reference: wav(1), image_reference: mockFixture('portrait.png') };
const fast = { pollInterval: 40, maxPollInterval: 80 };
/** Jobs run side by side first, so that the service is known to take this many at once. */
const WARM = 4;
/** The warm jobs' processing time: they run until the test moves the mock's clock on. */
const HELD_MS = 60_000;

let mock: MockServer;
let client: AvatarVideo;

beforeEach(async () => {
  mock = await startMockServer({ processingMs: (index) => (index < WARM ? HELD_MS : 100) });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
});
afterEach(async () => {
  await client.close();
  await mock.close();
});

/**
 * Run WARM jobs at once, each polled (so each create accepted, as the client saw it) before any ends: the limit
 * then stands one above them. From there, while one job runs at a time, a cut to 85% (a job FAILED for a rate limit)
 * shows one place fewer, and a job that ends well gives it back: its accepted create alone adds half a place, which
 * the whole limit shown does not show, and its end the other half. An end that teaches nothing leaves the place lost.
 */
async function warmUp() {
  const jobs = Array.from({ length: WARM }, () => client.videos.createAndWait(params, fast));
  const polled = () => new Set(mock.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/videos/')).map((r) => r.path));
  await vi.waitFor(() => expect(polled().size).toBe(WARM));
  mock.advance(HELD_MS);
  await Promise.all(jobs);
  expect(client.jobConcurrency).toEqual({ limit: WARM + 1, running: 0 });
  return client.jobConcurrency;
}

const failing = (code: string) => ({ status: 'FAILED' as const, error: { code, message: 'no' } });

/** The limit after a cut by a job FAILED for a rate limit, and the cut's date. */
function expectCut(before: JobConcurrency): JobConcurrency {
  const after = client.jobConcurrency;
  expect(after).toMatchObject({ limit: before.limit - 1, running: 0, lastThrottle: { cause: 'failed', at: expect.any(Date) } });
  expect(after.lastThrottle?.at.getTime()).toBeGreaterThan(before.lastThrottle?.at.getTime() ?? 0);
  return after;
}

/** The limit given back after an end that shows there was room, the last throttle as it was. */
function expectRoom(cut: JobConcurrency): JobConcurrency {
  const after = client.jobConcurrency;
  expect(after).toEqual({ ...cut, limit: cut.limit + 1 });
  return after;
}

it('createAndWait: a job FAILED for a rate limit throttles, any other end shows there was room, an abort teaches nothing', async () => {
  let state = await warmUp();
  const rateLimited = async () => {
    mock.enqueueOutcome(failing('rate_limit_exceeded'));
    // One job only: a second would be made after a rate-limited FAILED.
    await expect(client.videos.createAndWait(params, { ...fast, maxJobAttempts: 1 })).rejects.toMatchObject({ isRateLimited: true });
  };
  await rateLimited();
  state = expectCut(state);
  mock.enqueueOutcome(failing('face_not_found'));
  await expect(client.videos.createAndWait(params, fast)).rejects.toBeInstanceOf(VideoFailedError);
  state = expectRoom(state);
  await rateLimited();
  state = expectCut(state);
  await client.videos.createAndWait(params, fast);
  state = expectRoom(state);
  await rateLimited();
  state = expectCut(state);
  const controller = new AbortController();
  const aborted = client.videos.createAndWait(params, { ...fast, signal: controller.signal, onProgress: () => controller.abort() });
  await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
  // Nothing learnt from the abort, whose place was given back all the same.
  expect(client.jobConcurrency).toEqual(state);
});

it('generateBatch reports the same outcomes for its jobs', async () => {
  await warmUp();
  const dir = await mkdtemp(join(tmpdir(), 'avatar-permit-'));
  try {
    mock.enqueueOutcome(failing('rate_limit_exceeded')); // item a, first job
    mock.enqueueOutcome(failing('face_not_found')); // item a, second job
    mock.enqueueOutcome(failing('rate_limit_exceeded')); // item b, first job; its second job completes
    const seen: JobConcurrency[] = [];
    const items = ['a', 'b'].map((key) => ({ key, ...params }));
    const summary = await client.videos.generateBatch(items, {
      outputDir: dir,
      concurrency: 1,
      ...fast,
      onItem: () => void seen.push(client.jobConcurrency),
    });
    expect(summary).toMatchObject({ completed: 1, failed: 1 });
    // Each item's rate-limited job cut the limit, and its second job's end, failed on its inputs or COMPLETE, gave it back.
    const [afterA, afterB] = seen as [JobConcurrency, JobConcurrency];
    expect(afterA).toMatchObject({ limit: WARM + 1, running: 0, lastThrottle: { cause: 'failed' } });
    expect(afterB).toMatchObject({ limit: WARM + 1, running: 0, lastThrottle: { cause: 'failed' } });
    expect(afterB.lastThrottle?.at.getTime()).toBeGreaterThan(afterA.lastThrottle?.at.getTime() ?? 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
