/**
 * avatar-video/bullmq's processor against the mock, with a fake BullMQ job (data, updateData, updateProgress) and a
 * fake queue (rateLimit): what it stores in the job and when, what it asks the service, what it saves. The same
 * processor under real workers and a real Redis: test/bullmq-workers.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createVideoProcessor,
  QueueRateLimitError,
  type VideoJobData,
  type VideoProcessorOptions,
  videoJob,
  workerDefaults,
  workerOptions,
} from '../../src/bullmq/index.js';
import { AvatarVideo, AvatarVideoError, InvalidArgumentError, VideoFailedError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
let audio: string;
const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const RATE_LIMITED = { status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Too many jobs at once.' } } as const;

const closers = useCleanup();
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 150 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-bullmq-'));
  closers.push(
    () => mock.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
});
// A client per test: what its create-rate gate learns from one test's 429 is not the next test's.
beforeEach(() => {
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(() => client.close());
});
beforeEach(() => mock.reset());

/**
 * A BullMQ job as the processor sees it, recording each update: `data` as stored after each `updateData`, which
 * takes `storeMs` (a Redis far away): a processor that did not wait for it would poll meanwhile.
 */
function fakeJob(data: VideoJobData, storeMs = 0) {
  const job = {
    data,
    stored: [] as VideoJobData[],
    progress: [] as number[],
    /** Polls of the job's video the mock had answered when each `updateData` was done. */
    pollsWhenStored: [] as number[],
    async updateData(next: VideoJobData) {
      await sleep(storeMs);
      job.pollsWhenStored.push(polls(next.videoId));
      job.data = next;
      job.stored.push(structuredClone(next));
    },
    async updateProgress(value: unknown) {
      job.progress.push(value as number);
    },
  };
  return job;
}

/** A queue that records each `rateLimit(ms)`. */
function fakeQueue() {
  const limits: number[] = [];
  return { limits, rateLimit: async (ms: number) => void limits.push(ms) };
}

const polls = (id: string | undefined) => mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${id}`).length;
const creates = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;
const item = (key: string) => videoJob({ key, audio_reference: audio, image_reference: IMAGE }).data;

function processor(queue = fakeQueue(), options: Partial<VideoProcessorOptions> = {}) {
  return createVideoProcessor(client, { outputDir: dir, queue, ...options });
}

describe('createVideoProcessor', () => {
  it('a new item: creates, stores the id before the first poll, reports progress, saves <key>.mp4', async () => {
    // Several of the mock's poll hints (50 ms): ample time for a poll, had the processor not waited for the store.
    const job = fakeJob(item('first'), 300);
    const process = processor();
    // BullMQ hands its AbortSignal only to a processor that declares three parameters.
    expect(process.length).toBe(3);
    const result = await process(job);
    const id = job.data.videoId as string;
    expect(creates()).toBe(1);
    expect(job.stored).toEqual([{ ...item('first'), videoId: id }]);
    expect(job.pollsWhenStored).toEqual([0]);
    expect(polls(id)).toBeGreaterThan(0);
    expect(result).toEqual({ key: 'first', status: 'saved', videoId: id, path: join(dir, 'first.mp4'), bytes: expect.any(Number) });
    const mp4 = await summarizeMp4(result.path);
    expect(Object.values(mp4.tags).join(' ')).toContain(`job=${id}`);
    expect(job.progress.at(-1)).toBe(100);
    expect(job.progress).toEqual([...job.progress].sort((a, b) => a - b));
  });

  it('a stored id: waits for that job and saves it, with no create', async () => {
    const { id } = mock.state.createVideo({ model: null, generation_mode: 'image_to_video', aspect_ratio: '9:16' });
    const job = fakeJob({ ...item('stored'), videoId: id });
    const result = await processor()(job);
    expect(creates()).toBe(0);
    expect(job.stored).toEqual([]);
    expect(result).toMatchObject({ status: 'saved', videoId: id });
    expect(Object.values((await summarizeMp4(result.path)).tags).join(' ')).toContain(`job=${id}`);
  });

  it("a 429 on create: pauses the queue for its Retry-After and throws BullMQ's rate-limit error, the data unchanged", async () => {
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '7' } });
    const queue = fakeQueue();
    const job = fakeJob(item('throttled'));
    const error = await processor(queue)(job).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueRateLimitError);
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error).toMatchObject({ message: 'bullmq:rateLimitExceeded', delayMs: 7_000 });
    expect(queue.limits).toEqual([7_000]);
    expect(job.stored).toEqual([]);
    expect(job.data).toEqual(item('throttled'));
    expect(mock.creates).toBe(0);
  });

  it('a 429 without Retry-After pauses the queue for rateLimitDelay', async () => {
    const quiet = await startMockServer({ pollAfterMs: null });
    const quietClient = new AvatarVideo({ apiKey: quiet.apiKey, baseURL: quiet.baseURL, logLevel: 'off' });
    closers.push(
      () => quietClient.close(),
      () => quiet.close(),
    );
    quiet.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429 });
    const queue = fakeQueue();
    const process = createVideoProcessor(quietClient, { outputDir: dir, queue, rateLimitDelay: 1_234 });
    await expect(process(fakeJob(item('quiet')))).rejects.toThrow('bullmq:rateLimitExceeded');
    expect(queue.limits).toEqual([1_234]);
  });

  it('a job FAILED for a rate limit, every time: the stored id is cleared, so the next attempt creates again', async () => {
    // More than the SDK makes within one attempt: each of its jobs fails.
    for (let i = 0; i < 10; i++) mock.enqueueOutcome(RATE_LIMITED);
    const job = fakeJob(item('limited'));
    const error = await processor()(job).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoFailedError);
    expect(error).toMatchObject({ isRateLimited: true });
    expect(job.stored.length).toBe(mock.creates + 1);
    expect(job.stored[0]?.videoId).toMatch(/^vid_/);
    expect(job.data).toEqual(item('limited'));
    expect('videoId' in job.data).toBe(false);
  });

  it('an output already saved: skipped, no request sent', async () => {
    await writeFile(join(dir, 'done.mp4'), 'saved before');
    const job = fakeJob({ ...item('done'), videoId: 'vid_earlier' });
    const result = await processor()(job);
    expect(result).toEqual({ key: 'done', status: 'skipped', videoId: 'vid_earlier', path: join(dir, 'done.mp4'), bytes: 12 });
    expect(mock.requests).toEqual([]);
    expect(job.stored).toEqual([]);
  });

  it('takes a file: URL string as an input', async () => {
    const job = fakeJob({ key: 'by-url', audio_reference: audio, image_reference: mockFixture('portrait.png').href });
    await expect(processor()(job)).resolves.toMatchObject({ status: 'saved' });
  });

  it('refuses job data whose key is not a safe file name, sending nothing', async () => {
    const job = fakeJob({ ...item('x'), key: '../escape' });
    await expect(processor()(job)).rejects.toThrow(InvalidArgumentError);
    expect(mock.requests).toEqual([]);
  });

  it('refuses options without outputDir or queue', () => {
    expect(() => createVideoProcessor(client, { queue: fakeQueue() } as unknown as VideoProcessorOptions)).toThrow(InvalidArgumentError);
    expect(() => createVideoProcessor(client, { outputDir: dir } as unknown as VideoProcessorOptions)).toThrow(InvalidArgumentError);
  });
});

describe('videoJob', () => {
  it('gives queue.add arguments: a jobId from the key, attempts and backoff, the item as data', () => {
    const job = videoJob({ key: 'Intro.v2', audio_reference: '/in/a.wav', video_reference: '/in/me.mp4', model: 'service-avatar-x' });
    expect(job).toEqual({
      name: 'video',
      data: { key: 'Intro.v2', audio_reference: '/in/a.wav', video_reference: '/in/me.mp4', model: 'service-avatar-x' },
      opts: { jobId: 'video-intro.v2', attempts: 5, backoff: { type: 'exponential', delay: 15_000 } },
    });
  });

  it('never gives BullMQ an id of digits only, nor one with a colon', () => {
    expect(videoJob({ key: '123', audio_reference: 'a.wav', image_reference: 'i.png' }).opts.jobId).toBe('video-123');
    expect(() => videoJob({ key: 'a:b', audio_reference: 'a.wav', image_reference: 'i.png' })).toThrow(InvalidArgumentError);
  });

  it('refuses keys that are not safe file names, and inputs that are not strings', () => {
    for (const key of ['', '.hidden', 'a/b', 'con', 'x'.repeat(129)]) {
      expect(() => videoJob({ key, audio_reference: 'a.wav', image_reference: 'i.png' })).toThrow(InvalidArgumentError);
    }
    const buffer = { key: 'k', audio_reference: wav(1), image_reference: 'i.png' } as unknown as Parameters<typeof videoJob>[0];
    expect(() => videoJob(buffer)).toThrow(expect.objectContaining({ argument: 'audio_reference' }));
  });

  it('drops a videoId given with the item: only the processor stores one', () => {
    const withId = { key: 'k', audio_reference: 'a.wav', image_reference: 'i.png', videoId: 'vid_x' };
    expect(videoJob(withId).data).not.toHaveProperty('videoId');
  });
});

it('workerDefaults set a limiter (manual rate limits apply only with one) that never binds on its own', () => {
  expect(workerDefaults.limiter.max).toBe(Number.MAX_SAFE_INTEGER);
  expect(workerDefaults.maxStalledCount).toBeGreaterThan(1);
});

describe('workerOptions: BullMQ limiter from the create rate', () => {
  const saved = process.env.AVATAR_VIDEO_CREATE_RATE;
  const restore = () => {
    if (saved === undefined) delete process.env.AVATAR_VIDEO_CREATE_RATE;
    else process.env.AVATAR_VIDEO_CREATE_RATE = saved;
  };
  beforeEach(() => {
    delete process.env.AVATAR_VIDEO_CREATE_RATE;
    closers.push(restore);
  });

  it('sets max to the limit and a window a little longer than the rate, keeping the other defaults', () => {
    const options = workerOptions({ createRate: { limit: 2, windowSeconds: 60 } });
    expect(options.limiter.max).toBe(2);
    expect(options.limiter.duration).toBeGreaterThan(60_000);
    expect(options.limiter.duration).toBeLessThanOrEqual(63_000);
    expect(workerOptions({ createRate: { limit: 2, windowSeconds: 1 } }).limiter.duration).toBeGreaterThanOrEqual(1_250);
    expect({ ...options, limiter: workerDefaults.limiter }).toEqual(workerDefaults);
  });

  it('reads AVATAR_VIDEO_CREATE_RATE when no rate is given; without either, the defaults', () => {
    expect(workerOptions()).toEqual(workerDefaults);
    process.env.AVATAR_VIDEO_CREATE_RATE = ' 3/10 ';
    expect(workerOptions().limiter.max).toBe(3);
    expect(workerOptions({ createRate: { limit: 1, windowSeconds: 5 } }).limiter.max).toBe(1);
  });

  it('refuses a rate of another shape, and a variable not written as 2/60', () => {
    expect(() => workerOptions({ createRate: { limit: 0, windowSeconds: 60 } })).toThrow(InvalidArgumentError);
    expect(() => workerOptions(null as never)).toThrow(InvalidArgumentError);
    process.env.AVATAR_VIDEO_CREATE_RATE = '2 a minute';
    expect(() => workerOptions()).toThrow(/AVATAR_VIDEO_CREATE_RATE must be creates per window/);
  });
});
