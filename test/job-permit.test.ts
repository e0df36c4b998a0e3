/**
 * What a job's end teaches the client's limit: the outcome each helper reports when it gives its place back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { APIUserAbortError, AvatarVideo, VideoFailedError } from '../src/index.js';
import { ConcurrencyLimiter, type JobOutcome } from '../src/internal/concurrency-limiter.js';
import { type MockServer, startMockServer } from '../src/testing/index.js';
import { mockFixture, wav } from './helpers/media.js';

const params = { audio_reference: wav(1), image_reference: mockFixture('portrait.png') };
const fast = { pollInterval: 40, maxPollInterval: 80 };

let mock: MockServer;
let client: AvatarVideo;
/** Every outcome a permit of any limiter was released with, in order. */
let outcomes: JobOutcome[];

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 100 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  outcomes = [];
  const acquire = ConcurrencyLimiter.prototype.acquire;
  vi.spyOn(ConcurrencyLimiter.prototype, 'acquire').mockImplementation(async function (this: ConcurrencyLimiter, signal) {
    const permit = await acquire.call(this, signal);
    return {
      startedAt: permit.startedAt,
      release: (outcome, retryAfterMs) => {
        outcomes.push(outcome);
        permit.release(outcome, retryAfterMs);
      },
    };
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await client.close();
  await mock.close();
});

const failing = (code: string) => ({ status: 'FAILED' as const, error: { code, message: 'no' } });

it('createAndWait: a job FAILED for a rate limit throttles, any other end shows there was room, an abort teaches nothing', async () => {
  mock.enqueueOutcome(failing('rate_limit_exceeded'));
  await expect(client.videos.createAndWait(params, fast)).rejects.toMatchObject({ isRateLimited: true });
  mock.enqueueOutcome(failing('face_not_found'));
  await expect(client.videos.createAndWait(params, fast)).rejects.toBeInstanceOf(VideoFailedError);
  await client.videos.createAndWait(params, fast);
  const controller = new AbortController();
  const aborted = client.videos.createAndWait(params, { ...fast, signal: controller.signal, onProgress: () => controller.abort() });
  await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
  expect(outcomes).toEqual(['throttled', 'completed', 'completed', 'unknown']);
});

it('generateBatch reports the same outcomes for its jobs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'avatar-permit-'));
  try {
    mock.enqueueOutcome(failing('rate_limit_exceeded')); // item a, first job; its second job completes
    mock.enqueueOutcome({ status: 'COMPLETE' });
    mock.enqueueOutcome(failing('face_not_found')); // item b
    const items = ['a', 'b'].map((key) => ({ key, ...params }));
    const summary = await client.videos.generateBatch(items, { outputDir: dir, maxConcurrency: 1, ...fast });
    expect(summary).toMatchObject({ completed: 1, failed: 1 });
    expect(outcomes).toEqual(['throttled', 'completed', 'completed']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
