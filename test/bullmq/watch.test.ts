/**
 * avatar-video/bullmq's watches: `watchJob` and its checks, the delay after failed polls, how a failed poll is read,
 * and `createWatchProcessor` under a real Worker on a real redis-server (started here) against the mock: one poll a
 * run with the job in the delayed set between runs, and one delivery added when the watch ends, whichever way.
 * The deliveries are read from their queue; sending them is the delivery processor's (test/bullmq of its own).
 *
 * Without redis-server on PATH the Redis tests are skipped, saying how to install it; under CI=true they fail instead.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryJobData } from '../../src/bullmq/delivery-job.js';
import {
  createWatchProcessor,
  type WatchJobData,
  type WatchJobResult,
  type WatchProcessorOptions,
  watchJob,
} from '../../src/bullmq/index.js';
import { failureKind, WATCH_RETRY_CAP_MS, watchRetryDelay } from '../../src/bullmq/watch.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  AvatarVideo,
  InternalServerError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
} from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { findRedisServer, REDIS_INSTALL_HINT, type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const NOTIFY = 'https://receiver.example/hooks/avatar?token=abc';

describe('watchJob', () => {
  it('makes a queue job whose id comes from the video and the URL, so the same watch twice is one job', () => {
    const job = watchJob('vid_123', { notifyUrl: NOTIFY });
    expect(job.name).toBe('watch');
    expect(job.data).toEqual({ videoId: 'vid_123', notifyUrl: NOTIFY });
    expect(job.opts.jobId).toMatch(/^watch-[0-9a-f]{32}$/);
    expect(job.opts.attempts).toBeGreaterThan(1);
    expect(job.opts.backoff.type).toBe('exponential');
    expect(watchJob('vid_123', { notifyUrl: NOTIFY }).opts.jobId).toBe(job.opts.jobId);
    // The URL as WHATWG parsing normalizes it: the same receiver written two ways is one watch.
    expect(watchJob('vid_123', { notifyUrl: 'HTTPS://Receiver.example:443/hooks/avatar?token=abc' }).opts.jobId).toBe(job.opts.jobId);
    expect(watchJob('vid_124', { notifyUrl: NOTIFY }).opts.jobId).not.toBe(job.opts.jobId);
    expect(watchJob('vid_123', { notifyUrl: `${NOTIFY}d` }).opts.jobId).not.toBe(job.opts.jobId);
  });

  it.each([
    ['', 'videoId'],
    ['x'.repeat(257), 'videoId'],
    ['vid 123', 'videoId'],
    ['vid_1\n', 'videoId'],
    ['..', 'videoId'],
    [42, 'videoId'],
    [undefined, 'videoId'],
  ])('refuses the video id %j', (videoId, argument) => {
    const error = catchError(() => watchJob(videoId as string, { notifyUrl: NOTIFY }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect((error as Error).message).toMatch(/^watchJob: videoId /);
  });

  it.each([
    'ftp://receiver.example/hook',
    '/hooks/avatar',
    'https://user:pass@receiver.example/hook',
    `https://receiver.example/${'a'.repeat(2_100)}`,
    '',
    undefined,
  ])('refuses the notify URL %j', (notifyUrl) => {
    const error = catchError(() => watchJob('vid_123', { notifyUrl: notifyUrl as string }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe('notifyUrl');
  });

  it('refuses missing options', () => {
    expect(() => watchJob('vid_123', undefined as unknown as { notifyUrl: string })).toThrow(InvalidArgumentError);
  });
});

describe('watchRetryDelay', () => {
  const top = () => 0;
  const bottom = () => 1;

  it('waits pollInterval after the first failed poll, doubling after each, at most a minute', () => {
    expect([1, 2, 3, 4, 5].map((failures) => watchRetryDelay(failures, 2_000, top))).toEqual([2_000, 4_000, 8_000, 16_000, 32_000]);
    expect(watchRetryDelay(6, 2_000, top)).toBe(WATCH_RETRY_CAP_MS);
    expect(watchRetryDelay(60, 2_000, top)).toBe(WATCH_RETRY_CAP_MS);
    // A pollInterval above the cap is cut to it too: an outage must not hide a settled video for longer.
    expect(watchRetryDelay(1, 120_000, top)).toBe(WATCH_RETRY_CAP_MS);
    expect(watchRetryDelay(1, undefined, top)).toBe(2_000);
  });

  it('shortens each delay by up to a quarter, the same for the same random number', () => {
    expect(watchRetryDelay(3, 1_000, bottom)).toBe(3_000);
    expect(watchRetryDelay(3, 1_000, () => 0.5)).toBe(3_500);
    for (let failures = 1; failures < 12; failures++) {
      const delay = watchRetryDelay(failures, 500);
      const base = Math.min(500 * 2 ** (failures - 1), WATCH_RETRY_CAP_MS);
      expect(delay).toBeGreaterThanOrEqual(base * 0.75);
      expect(delay).toBeLessThanOrEqual(base);
    }
  });

  it('never grows for 0 or a negative count (a damaged job)', () => {
    expect(watchRetryDelay(0, 1_000, top)).toBe(1_000);
    expect(watchRetryDelay(-3, 1_000, top)).toBe(1_000);
  });
});

describe('failureKind', () => {
  const api = (ErrorClass: typeof NotFoundError, status: number) =>
    new ErrorClass({ status, message: `${status}`, headers: {}, body: undefined });

  it('reads a 404 as the video gone, a 5xx, 429, 408, 409 or lost connection as transient, the rest as a fault', () => {
    expect(failureKind(api(NotFoundError, 404))).toBe('not_found');
    expect(failureKind(api(InternalServerError, 500))).toBe('transient');
    expect(failureKind(api(InternalServerError, 503))).toBe('transient');
    expect(failureKind(api(RateLimitError, 429))).toBe('transient');
    expect(failureKind(new APIConnectionError('reset'))).toBe('transient');
    expect(failureKind(new APIConnectionTimeoutError())).toBe('transient');
    expect(failureKind(api(AuthenticationError, 401))).toBe('fatal');
    expect(failureKind(api(PermissionDeniedError, 403))).toBe('fatal');
    expect(failureKind(new APIConnectionError('bad certificate', { code: 'tls_certificate' }))).toBe('fatal');
    expect(failureKind(new ResponseValidationError({ message: 'bad answer', body: {}, requestId: undefined, problems: [] }))).toBe('fatal');
    expect(failureKind(new TypeError('bug'))).toBe('fatal');
  });
});

describe('createWatchProcessor', () => {
  const client = { videos: { poll: async () => ({}) as never } };
  const deliveryQueue = { add: async () => ({}) as never };

  it('refuses options without a delivery queue, a bad waitTimeout, or a client without videos.poll', () => {
    const refused = (c: unknown, options: unknown) =>
      (catchError(() => createWatchProcessor(c as typeof client, options as WatchProcessorOptions)) as InvalidArgumentError)?.argument;
    expect(refused(client, {})).toBe('deliveryQueue');
    expect(refused(client, undefined)).toBe('deliveryQueue');
    expect(refused(client, { deliveryQueue, waitTimeout: 0 })).toBe('waitTimeout');
    expect(refused(client, { deliveryQueue, waitTimeout: Number.NaN })).toBe('waitTimeout');
    expect(refused({}, { deliveryQueue })).toBe('client');
    expect(typeof createWatchProcessor(client, { deliveryQueue })).toBe('function');
  });
});

const closers = useCleanup();
const runnable = findRedisServer() !== undefined || process.env.CI === 'true';
if (!runnable) console.warn(`test/bullmq/watch.test.ts: the Redis tests are skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);
const API_KEY = 'sk-watch-test-key-do-not-leak';
const FIELDS = { model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' } as const;

(runnable ? describe : describe.skip)('createWatchProcessor on a real redis-server', () => {
  let dir: string;
  let redis: RedisServer;
  let mock: MockServer;
  let connection: { path: string };
  let queues = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'avatar-watch-'));
    redis = await startRedisServer(dir);
    // No poll hint: the schedule times the polls, as against the service.
    mock = await startMockServer({ processingMs: 1_500, pollAfterMs: null, apiKey: API_KEY });
    connection = { path: redis.path };
  });
  afterAll(async () => {
    await Promise.all([mock?.close(), redis?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  /** A watch queue with one Worker of `createWatchProcessor`, its events, and a delivery queue, all closed after the test. */
  async function setUp(options: Partial<WatchProcessorOptions> = {}, clientOptions: { apiKey?: string; maxRetries?: number } = {}) {
    const name = `watches-${++queues}`;
    const client = new AvatarVideo({ baseURL: mock.baseURL, apiKey: API_KEY, logLevel: 'off', ...clientOptions });
    const queue = new Queue<WatchJobData, WatchJobResult>(name, { connection });
    const deliveries = new Queue<DeliveryJobData>(`deliveries-${queues}`, { connection });
    const events = new QueueEvents(name, { connection });
    await events.waitUntilReady();
    const processor = createWatchProcessor(client, { deliveryQueue: deliveries, pollInterval: 200, maxPollInterval: 1_000, ...options });
    const worker = new Worker(name, processor, { connection, concurrency: 10 });
    const runs = new Map<string, number>();
    worker.on('active', (job: Job) => runs.set(job.id as string, (runs.get(job.id as string) ?? 0) + 1));
    const delayed = new Map<string, number>();
    events.on('delayed', ({ jobId }) => delayed.set(jobId, (delayed.get(jobId) ?? 0) + 1));
    closers.push(async () => {
      await worker.close();
      await Promise.all([queue.close(), deliveries.close(), events.close(), client.close()]);
    });
    await worker.waitUntilReady();
    return { queue, deliveries, events, runs, delayed };
  }

  const pollsOf = (id: string) => mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${id}`).length;

  it('ends a watch of a video with one video.completed delivery, one poll a run, the job delayed between runs', {
    timeout: 60_000,
  }, async () => {
    const { queue, deliveries, events, runs, delayed } = await setUp();
    const created = mock.state.createVideo(FIELDS);
    const { name, data, opts } = watchJob(created.id, { notifyUrl: NOTIFY });
    const job = await queue.add(name, data, opts);
    const result = await job.waitUntilFinished(events, 50_000);

    const video = mock.getVideo(created.id);
    expect(video?.status).toBe('COMPLETE');
    expect(result).toMatchObject({ videoId: created.id, status: 'COMPLETE', type: 'video.completed' });
    expect(result.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    const [delivery, ...more] = await deliveries.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
    expect(more).toEqual([]);
    expect(delivery?.name).toBe('delivery');
    expect(delivery?.data.notifyUrl).toBe(NOTIFY);
    expect(delivery?.data.event).toMatchObject({ id: result.eventId, type: 'video.completed', data: video });
    expect(delivery?.data.event.reason).toBeUndefined();
    // One poll a run, and every run but the last put the job back in the delayed set: no worker waited on the watch.
    const polls = pollsOf(created.id);
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThan(25);
    expect(runs.get(job.id as string)).toBe(polls);
    await expect.poll(() => delayed.get(job.id as string)).toBe(polls - 1);
    // The job's data kept the schedule's state between runs; no key anywhere in what was stored.
    const stored = (await queue.getJob(job.id as string))?.data;
    expect(stored?.state?.polls).toBe(polls - 1);
    expect(JSON.stringify([stored, delivery?.data])).not.toContain(API_KEY);
  });

  it('ends a watch of an id the service does not know with video.failed, reason video_not_found', { timeout: 60_000 }, async () => {
    const { queue, deliveries, events } = await setUp();
    const { name, data, opts } = watchJob('vid_doesnotexist', { notifyUrl: NOTIFY });
    const result = await (await queue.add(name, data, opts)).waitUntilFinished(events, 50_000);
    expect(result).toMatchObject({ videoId: 'vid_doesnotexist', status: 'FAILED', type: 'video.failed', reason: 'video_not_found' });
    const [delivery, ...more] = await deliveries.getJobs(['waiting']);
    expect(more).toEqual([]);
    const event = delivery?.data.event;
    expect(event?.type).toBe('video.failed');
    expect(event?.reason?.code).toBe('video_not_found');
    expect(event?.reason?.message).toContain('vid_doesnotexist');
    expect(event?.data).toMatchObject({ id: 'vid_doesnotexist', status: 'FAILED', error: { code: 'video_not_found' } });
    expect(pollsOf('vid_doesnotexist')).toBe(1);
  });

  it('ends a watch at its waitTimeout with video.failed, reason watch_timed_out, and the video as last read', {
    timeout: 60_000,
  }, async () => {
    const { queue, deliveries, events } = await setUp({ waitTimeout: 1_200 });
    const created = mock.state.createVideo(FIELDS);
    mock.setVideo(created.id, { status: 'PROCESSING', progress: 40 });
    const { name, data, opts } = watchJob(created.id, { notifyUrl: NOTIFY });
    const result = await (await queue.add(name, data, opts)).waitUntilFinished(events, 50_000);
    expect(result).toMatchObject({ videoId: created.id, status: 'PROCESSING', type: 'video.failed', reason: 'watch_timed_out' });
    const [delivery, ...more] = await deliveries.getJobs(['waiting']);
    expect(more).toEqual([]);
    expect(delivery?.data.event.reason?.code).toBe('watch_timed_out');
    expect(delivery?.data.event.data).toMatchObject({ id: created.id, status: 'PROCESSING', progress: 40 });
    expect(pollsOf(created.id)).toBeGreaterThanOrEqual(2);
  });

  it('polls again later after transient failures (503, 500 and 429, the client retrying none), then delivers', {
    timeout: 60_000,
  }, async () => {
    const { queue, deliveries, events } = await setUp({}, { maxRetries: 0 });
    const created = mock.state.createVideo(FIELDS);
    const path = `/v1/videos/${created.id}`;
    mock.failNext({ method: 'GET', path }, { status: 503, times: 2 });
    mock.failNext({ method: 'GET', path }, { status: 500 });
    mock.failNext({ method: 'GET', path }, { status: 429 });
    const { name, data, opts } = watchJob(created.id, { notifyUrl: NOTIFY });
    const job = await queue.add(name, data, opts);
    const result = await job.waitUntilFinished(events, 50_000);
    expect(result).toMatchObject({ status: 'COMPLETE', type: 'video.completed' });
    expect(mock.requests.filter((r) => r.path === path && r.status !== undefined && r.status >= 429).length).toBe(4);
    expect(await deliveries.getJobCounts('waiting')).toEqual({ waiting: 1 });
    // The failures used no attempt (the polls came back by the delayed set): BullMQ counts the completing run alone.
    expect((await queue.getJob(job.id as string))?.attemptsMade).toBe(1);
  });

  it('fails the job on a 401 (BullMQ attempts), without the key in its reason, and delivers nothing', { timeout: 60_000 }, async () => {
    const { queue, deliveries, events } = await setUp({}, { apiKey: 'sk-wrong-key-of-this-test' });
    const created = mock.state.createVideo(FIELDS);
    const { name, data, opts } = watchJob(created.id, { notifyUrl: NOTIFY });
    const job = await queue.add(name, data, { ...opts, attempts: 1 });
    await expect(job.waitUntilFinished(events, 50_000)).rejects.toThrow(/401|key/i);
    const failed = await queue.getJob(job.id as string);
    expect(failed?.failedReason).not.toContain('sk-wrong-key-of-this-test');
    expect(await deliveries.count()).toBe(0);
  });

  it('starts the schedule afresh from a state this SDK cannot read (another version), keeping the watch start', {
    timeout: 60_000,
  }, async () => {
    const { queue, deliveries, events } = await setUp();
    const created = mock.state.createVideo(FIELDS);
    const { name, data, opts } = watchJob(created.id, { notifyUrl: NOTIFY });
    const startedAt = Date.now() - 1_000;
    const damaged = { ...data, startedAt, state: { v: 99, videoId: created.id } as unknown as WatchJobData['state'] };
    const job = await queue.add(name, damaged, opts);
    expect(await job.waitUntilFinished(events, 50_000)).toMatchObject({ status: 'COMPLETE', type: 'video.completed' });
    expect(await deliveries.getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect((await queue.getJob(job.id as string))?.data.startedAt).toBe(startedAt);
  });

  it('adds the same watch once, however often it is registered', { timeout: 60_000 }, async () => {
    const { queue } = await setUp({ waitTimeout: 60_000 });
    await queue.pause();
    const created = mock.state.createVideo(FIELDS);
    const job = watchJob(created.id, { notifyUrl: NOTIFY });
    await queue.add(job.name, job.data, job.opts);
    await queue.add(job.name, job.data, watchJob(created.id, { notifyUrl: NOTIFY }).opts);
    await queue.addBulk([job, watchJob(created.id, { notifyUrl: 'https://receiver.example/other' })]);
    expect(await queue.count()).toBe(2);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
