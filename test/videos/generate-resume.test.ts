/**
 * `generate` as a queue's worker uses it (issue 19): `onCreated` awaited before the first poll, a job taken up by
 * `videoId`, `onThrottled` on a refused create, and `jobLimit: 'external'` outside the client's limit. Against the
 * mock, over a real loopback socket.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AvatarVideo,
  AvatarVideoError,
  type ClientOptions,
  InvalidArgumentError,
  RateLimitError,
  type Video,
  VideoFailedError,
} from '../../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';

const closers = useCleanup();
let mock: MockServer;
let client: AvatarVideo;
let dir: string;

async function setup(options: MockServerOptions, clientOptions: ClientOptions = {}) {
  mock = await startMockServer(options);
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', ...clientOptions });
  dir = await mkdtemp(join(tmpdir(), 'avatar-resume-'));
  closers.push(
    mock.close,
    () => client.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
}

const params = () => ({ audio_reference: wav(2), image_reference: mockFixture('portrait.png') });
const fast = { pollInterval: 10, maxPollInterval: 20 };
const seen = () => mock.requests.filter((r) => r.origin === 'api').map((r) => `${r.method} ${r.path}`);
const creates = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos');
const rateLimited = { status: 'FAILED' as const, error: { code: 'rate_limit_exceeded', message: 'too many jobs' } };
const whole = async (path: string) => (await stat(path)).size > 0 && (await readFile(path)).subarray(4, 8).toString() === 'ftyp';

describe('onCreated', () => {
  it('is called with the new job before the first poll, then the video is saved', async () => {
    await setup({ processingMs: 100 });
    const output = join(dir, 'out.mp4');
    let created: Video | undefined;
    let requestsThen: string[] = [];
    const result = await client.videos.generate(params(), {
      output,
      ...fast,
      onCreated: (video) => {
        created = video;
        requestsThen = seen();
      },
    });
    expect(created?.id).toBe(result.video.id);
    expect(requestsThen).toEqual(['POST /v1/videos']);
    expect(seen()).toContain(`GET /v1/videos/${result.video.id}`);
    expect(await whole(output)).toBe(true);
  });

  it('is awaited: the wait starts only once its promise settles', async () => {
    await setup({ processingMs: 100 });
    const events: string[] = [];
    await client.videos.generate(params(), {
      output: join(dir, 'out.mp4'),
      ...fast,
      onCreated: async () => {
        events.push('onCreated called');
        // A request of its own (as storing the id is), answered before onCreated returns.
        await client.videos.list();
        events.push('onCreated done');
      },
      onProgress: () => events.push('progress'),
    });
    expect(events.slice(0, 3)).toEqual(['onCreated called', 'onCreated done', 'progress']);
    const api = seen();
    expect(api.indexOf('GET /v1/videos')).toBeLessThan(api.findIndex((line) => /^GET \/v1\/videos\/.+/.test(line)));
  });

  it('that throws rejects with videoId set (the job exists), the original as cause, and no poll', async () => {
    await setup({ processingMs: 100 });
    const thrown = new Error('the store is down');
    const error = await client.videos
      .generate(params(), {
        output: join(dir, 'out.mp4'),
        ...fast,
        onCreated: async () => {
          throw thrown;
        },
      })
      .catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    // Not the SDK's own error: wrapped, as every error after a create is, so that it can name the job.
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error).toMatchObject({ videoId: id, cause: thrown, message: expect.stringContaining(`videos.waitForCompletion('${id}')`) });
    expect(seen()).toEqual(['POST /v1/videos']);
  });
});

describe('videoId', () => {
  it('of a running job: no create, the job waited on and saved', async () => {
    await setup({ processingMs: 200 });
    const job = await client.videos.create(params());
    const output = join(dir, 'out.mp4');
    const calls: Video[] = [];
    const result = await client.videos.generate(params(), { output, ...fast, videoId: job.id, onCreated: (v) => void calls.push(v) });
    expect(job.status).toBe('PROCESSING');
    expect(result.video.id).toBe(job.id);
    expect(creates()).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(await whole(output)).toBe(true);
  });

  it('of a job FAILED for a rate limit: a new job is created, onCreated told its id, and it is saved', async () => {
    await setup({ processingMs: 0 });
    mock.enqueueOutcome(rateLimited);
    const failed = await client.videos.create(params());
    const output = join(dir, 'out.mp4');
    const ids: string[] = [];
    const result = await client.videos.generate(params(), { output, ...fast, videoId: failed.id, onCreated: (v) => void ids.push(v.id) });
    expect(creates()).toHaveLength(2);
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe(failed.id);
    expect(result.video.id).toBe(ids[0]);
    expect(await whole(output)).toBe(true);
  });

  it('of a job FAILED otherwise: VideoFailedError with its videoId, and no create', async () => {
    await setup({ processingMs: 0 });
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'no face' } });
    const failed = await client.videos.create(params());
    const output = join(dir, 'out.mp4');
    const error = await client.videos.generate(params(), { output, ...fast, videoId: failed.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoFailedError);
    expect((error as VideoFailedError).videoId).toBe(failed.id);
    expect(creates()).toHaveLength(1);
    await expect(stat(output)).rejects.toThrow();
  });

  it('that is not an id, or an unknown jobLimit: InvalidArgumentError, and no request', async () => {
    await setup({ processingMs: 0 });
    const output = join(dir, 'out.mp4');
    const empty = await client.videos.generate(params(), { output, videoId: '' }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(InvalidArgumentError);
    expect(empty).toMatchObject({ argument: 'videoId' });
    const limit = { output, jobLimit: 'queue' } as unknown as { output: string };
    await expect(client.videos.generate(params(), limit)).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'jobLimit' });
    expect(mock.requests).toEqual([]);
  });
});

describe('onThrottled', () => {
  it('gets a refused create’s Retry-After in ms; what it throws is what generate rejects with, and no job exists', async () => {
    await setup({ processingMs: 0 });
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '2' } });
    const thrown = new Error('bullmq:rateLimitExceeded');
    const hints: Array<number | undefined> = [];
    const error = await client.videos
      .generate(params(), {
        output: join(dir, 'out.mp4'),
        onThrottled: async (retryAfterMs) => {
          hints.push(retryAfterMs);
          throw thrown;
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBe(thrown);
    expect(hints).toEqual([2_000]);
    expect(creates()).toHaveLength(1);
    expect(mock.state.listVideos()).toEqual([]);
  });

  it('that returns lets the create be retried as today', async () => {
    await setup({ processingMs: 0 });
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '0.01' } });
    const hints: Array<number | undefined> = [];
    const result = await client.videos.generate(params(), {
      output: join(dir, 'out.mp4'),
      ...fast,
      onThrottled: (retryAfterMs) => void hints.push(retryAfterMs),
    });
    expect(hints).toEqual([10]);
    expect(creates()).toHaveLength(2);
    expect(result.video.status).toBe('COMPLETE');
  });
  it('without it, the runner sends a refused create again whatever maxRetries says; a Retry-After beyond maxRetryDelay rejects at once', async () => {
    await setup({ processingMs: 0 });
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '0.01' } });
    // maxRetries bounds requests that are not creates: the transport alone would have given up after this 429.
    const made = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), ...fast, maxRetries: 0 });
    expect(made.video.status).toBe('COMPLETE');
    expect(creates()).toHaveLength(2);
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '120' } });
    const error = await client.videos.generate(params(), { output: join(dir, 'late.mp4'), maxRetryDelay: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120_000);
    expect(creates()).toHaveLength(3);
  });
});

describe("jobLimit: 'external'", () => {
  it('runs while the client’s limit is full, takes no place, and the client’s limit learns nothing of it', async () => {
    // The first job holds the client's only place for as long as the test needs it.
    await setup({ processingMs: (index) => (index === 0 ? 600_000 : 0) }, { jobConcurrency: 1 });
    const holder = new AbortController();
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const first = client.videos.createAndWait(params(), { ...fast, signal: holder.signal, onProgress: () => holding() }).catch(() => {});
    await held;
    expect(client.jobConcurrency).toMatchObject({ limit: 1, running: 1 });
    // A refused create on the way: it must not pause or cut the client's limit.
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '0.01' } });
    const runningThen: number[] = [];
    const output = join(dir, 'out.mp4');
    const result = await client.videos.generate(params(), {
      output,
      ...fast,
      jobLimit: 'external',
      onCreated: () => void runningThen.push(client.jobConcurrency.running),
    });
    expect(result.video.status).toBe('COMPLETE');
    expect(await whole(output)).toBe(true);
    expect(runningThen).toEqual([1]);
    expect(client.jobConcurrency).toEqual({ limit: 1, running: 1 });
    holder.abort();
    await first;
  });
});
