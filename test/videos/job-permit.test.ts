/**
 * What a job's end teaches the client's limit: the outcome each helper reports when it gives its place back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { APIUserAbortError, AvatarVideo, VideoFailedError } from '../../src/index.js';
import type { ConcurrencyEvent } from '../../src/internal/adaptive-concurrency.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { mockFixture, wav } from '../helpers/media.js';

/** Every event any limiter fed its policy, in order: what each job's end taught it. */
const events = vi.hoisted(() => [] as ConcurrencyEvent[]);
vi.mock('../../src/internal/adaptive-concurrency.js', async (original) => {
  const policy = await original<typeof import('../../src/internal/adaptive-concurrency.js')>();
  return {
    ...policy,
    nextConcurrency: (...args: Parameters<typeof policy.nextConcurrency>) => {
      events.push(args[1]);
      return policy.nextConcurrency(...args);
    },
  };
});

/** The outcome each job's end reported: a rate-limited failure throttles, any other end completes, an abort says nothing. */
const outcomes = () =>
  events.flatMap((e) => (e.type === 'completed' ? ['completed'] : e.type === 'throttled' ? [`throttled:${e.cause}`] : []));

const params = { audio_reference: wav(1), image_reference: mockFixture('portrait.png') };
const fast = { pollInterval: 40, maxPollInterval: 80 };

let mock: MockServer;
let client: AvatarVideo;

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 100 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  events.splice(0);
});
afterEach(async () => {
  await client.close();
  await mock.close();
});

const failing = (code: string) => ({ status: 'FAILED' as const, error: { code, message: 'no' } });

it('createAndWait: a job FAILED for a rate limit throttles, any other end shows there was room, an abort teaches nothing', async () => {
  mock.enqueueOutcome(failing('rate_limit_exceeded'));
  // One job only: a second would be made after a rate-limited FAILED.
  await expect(client.videos.createAndWait(params, { ...fast, maxJobAttempts: 1 })).rejects.toMatchObject({ isRateLimited: true });
  mock.enqueueOutcome(failing('face_not_found'));
  await expect(client.videos.createAndWait(params, fast)).rejects.toBeInstanceOf(VideoFailedError);
  await client.videos.createAndWait(params, fast);
  const controller = new AbortController();
  const aborted = client.videos.createAndWait(params, { ...fast, signal: controller.signal, onProgress: () => controller.abort() });
  await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
  expect(outcomes()).toEqual(['throttled:failed', 'completed', 'completed']); // and nothing for the abort...
  expect(client.jobConcurrency.running).toBe(0); // ...whose place was given back all the same
  expect(client.jobConcurrency.lastThrottle).toMatchObject({ cause: 'failed', at: expect.any(Date) });
});

it('generateBatch reports the same outcomes for its jobs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'avatar-permit-'));
  try {
    mock.enqueueOutcome(failing('rate_limit_exceeded')); // item a, first job; its second job completes
    mock.enqueueOutcome({ status: 'COMPLETE' });
    mock.enqueueOutcome(failing('face_not_found')); // item b
    const items = ['a', 'b'].map((key) => ({ key, ...params }));
    const summary = await client.videos.generateBatch(items, { outputDir: dir, concurrency: 1, ...fast });
    expect(summary).toMatchObject({ completed: 1, failed: 1 });
    expect(outcomes()).toEqual(['throttled:failed', 'completed', 'completed']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
