import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideo,
  NotFoundError,
  type Video,
  VideoCancelledError,
  VideoFailedError,
  WaitTimeoutError,
} from '../../src/index.js';
import { type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { type FakeTime, fakeTime } from '../helpers/fake-time.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const FAST = { pollInterval: 10, maxPollInterval: 40 };
const IMAGE = new URL('../fixtures/mock/landscape.jpg', import.meta.url);
const AUDIO = new URL('../fixtures/mock/tone-2s.mp3', import.meta.url);

const closers = useCleanup();

async function mock(options: MockServerOptions = {}) {
  const server = await startMockServer({ clock: 'manual', ...options });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
  closers.push(() => client.close(), server.close);
  const job = () => server.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' });
  const polls = (id: string) => server.requests.filter((r) => r.path === `/v1/videos/${id}`).length;
  return { server, client, job, polls };
}

/** A raw API whose retrieve answers come from `answer(n)` for the n-th poll; records when each poll arrived. */
async function scripted(answer: (n: number) => { body: object; headers?: Record<string, string> } | 'hang') {
  const times: number[] = [];
  const api = await rawServer((_req, res, index) => {
    times.push(performance.now());
    const reply = answer(index);
    if (reply === 'hang') return;
    json(res, 200, reply.body, reply.headers);
  });
  const client = new AvatarVideo({ apiKey: 'sk-wait-test', baseURL: api.url, logLevel: 'off' });
  closers.push(() => client.close(), api.close);
  return { api, client, times };
}

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('terminal states', () => {
  it('returns the COMPLETE video, reporting only changes of status or progress', async () => {
    const time = await fakeTime();
    // The mock's real clock, which is the faked Date: the job's time is the wait's.
    const { client, job } = await mock({ clock: 'real', processingMs: 5_000 });
    const { id } = job();
    const seen: string[] = [];
    const video = await time.run(() => client.videos.waitForCompletion(id, { onProgress: (v) => seen.push(`${v.status} ${v.progress}`) }));
    expect(video).toMatchObject({ id, status: 'COMPLETE', progress: 100 });
    expect(seen[0]).toBe('PROCESSING 0');
    expect(seen.at(-1)).toBe('COMPLETE 100');
    expect(new Set(seen).size).toBe(seen.length);
    const progress = seen.map((line) => Number(line.split(' ')[1]));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('throws VideoFailedError with the code and message, recognising a rate limit', async () => {
    const { server, client, job } = await mock({ processingMs: 0 });
    server.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Too many jobs' } });
    server.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face in the image' } });
    const limited = await client.videos.waitForCompletion(job().id, FAST).catch((error: unknown) => error);
    const other = await client.videos.waitForCompletion(job().id, FAST).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(VideoFailedError);
    expect(limited).toMatchObject({ code: 'rate_limit_exceeded', isRateLimited: true, video: { status: 'FAILED' } });
    expect((limited as Error).message).toContain('Too many jobs');
    expect(other).toMatchObject({ code: 'face_not_found', isRateLimited: false });
    expect(other).not.toBeInstanceOf(APIConnectionError);
  });

  it('throws VideoCancelledError with the video', async () => {
    const { server, client, job } = await mock({ processingMs: 0 });
    server.enqueueOutcome({ status: 'CANCELLED' });
    const { id } = job();
    const error = await client.videos.waitForCompletion(id, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoCancelledError);
    expect((error as VideoCancelledError).video).toMatchObject({ id, status: 'CANCELLED' });
  });

  it('keeps polling an unknown status, backing off instead of looping', async () => {
    const time = await fakeTime();
    const statuses = ['QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'COMPLETE'];
    const { client, times } = await scripted((n) => ({ body: video('vid_1', { status: statuses[n] ?? 'COMPLETE', progress: null }) }));
    const result = await time.run(() => client.videos.waitForCompletion('vid_1', { pollInterval: 40, maxPollInterval: 1_000 }));
    expect(result.status).toBe('COMPLETE');
    expect(times).toHaveLength(6);
    // 40 ms growing by 1.5x (no jitter: Math.random is 0).
    expect(time.sleeps()).toEqual([40, 60, 90, 135, 203]);
  });
});

describe('scheduling from progress', () => {
  /** A job of `ms` on fake time, progress linear in time (or null), answered over a real socket. */
  async function timedJob(time: FakeTime, ms: number, progress: 'linear' | 'null') {
    const { client, times } = await scripted(() => {
      const elapsed = time.now();
      if (elapsed >= ms) return { body: video('vid_1', { status: 'COMPLETE', progress: 100 }) };
      return { body: video('vid_1', { progress: progress === 'null' ? null : Math.floor((elapsed / ms) * 100) }) };
    });
    return { client, polls: () => times.length };
  }

  it('sees a job with linear progress finish within a quarter pollInterval, with a third of the polls of a 1 s poller', async () => {
    const time = await fakeTime();
    const { client, polls } = await timedJob(time, 60_000, 'linear');
    const reports: Array<{ progress: number | null | undefined; eta: number | undefined }> = [];
    const done = await time.run(() =>
      client.videos.waitForCompletion('vid_1', {
        onProgress: (v, { etaSeconds }) => reports.push({ progress: v.progress, eta: etaSeconds }),
      }),
    );
    expect(done.status).toBe('COMPLETE');
    expect(time.now() - 60_000).toBeGreaterThanOrEqual(0);
    expect(time.now() - 60_000).toBeLessThanOrEqual(500);
    expect(polls()).toBeLessThan(60 / 3);
    // The estimate is there once progress has moved, points at the real end, and is 0 when COMPLETE.
    expect(reports[0]?.eta).toBeUndefined();
    const midway = reports.find((r) => (r.progress ?? 0) >= 40 && r.eta !== undefined);
    expect(midway?.eta).toBeCloseTo(60 - ((midway?.progress ?? 0) / 100) * 60 - 0.3, -1);
    expect(reports.at(-1)).toEqual({ progress: 100, eta: 0 });
  });

  it('backs off as before when progress is null, with no estimate', async () => {
    const time = await fakeTime();
    const { client } = await timedJob(time, 30_000, 'null');
    const etas: Array<number | undefined> = [];
    await time.run(() => client.videos.waitForCompletion('vid_1', { onProgress: (_, { etaSeconds }) => etas.push(etaSeconds) }));
    expect(time.sleeps()).toEqual([2_000, 3_000, 4_500, 6_750, 10_000, 10_000]);
    expect(etas).toEqual([undefined, 0]);
  });
});

describe('deadline and abort', () => {
  it('throws WaitTimeoutError with the last video seen when the deadline passes, sleeping no further than it', async () => {
    const time = await fakeTime();
    const { client } = await scripted(() => ({ body: video('vid_1', { progress: null }) }));
    const error = await time.run(() => client.videos.waitForCompletion('vid_1', { waitTimeout: 30_000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ waitTimeout: 30_000, video: { id: 'vid_1', status: 'PROCESSING' } });
    expect(time.now()).toBe(30_000);
    // The last sleep, from the last poll to the deadline, was cut short of the 10 s the schedule asked.
    expect(time.now() - (time.requests.at(-1) ?? 0)).toBeLessThan(10_000);
  });

  it('ends at the deadline even while a poll hangs (the poll timeout never exceeds what is left)', async () => {
    const { client } = await scripted(() => 'hang');
    const error = await client.videos.waitForCompletion('vid_1', { ...FAST, waitTimeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).video).toBeUndefined();
  });

  it('stops at once when aborted during a sleep', async () => {
    const { client, times } = await scripted(() => ({ body: video('vid_1', { progress: null }) }));
    const controller = new AbortController();
    // A sleep of a minute (and no server hint): only the abort can end this wait before the test times out.
    const done = client.videos.waitForCompletion('vid_1', { pollInterval: 60_000, signal: controller.signal });
    await until(() => times.length === 1);
    controller.abort();
    await expect(done).rejects.toBeInstanceOf(APIUserAbortError);
    expect(times).toHaveLength(1);
  });

  it('stops at once when aborted during a poll, and sends nothing when already aborted', async () => {
    const { client, api } = await scripted(() => 'hang');
    const controller = new AbortController();
    const done = client.videos.waitForCompletion('vid_1', { ...FAST, signal: controller.signal });
    await until(() => api.requests.length === 1);
    controller.abort();
    await expect(done).rejects.toBeInstanceOf(APIUserAbortError);
    await expect(client.videos.waitForCompletion('vid_1', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(api.requests).toHaveLength(1);
  });
});

describe('errors while polling', () => {
  it('rides out transient 503s that outlast the core retries', async () => {
    const { server, client, job, polls } = await mock({ processingMs: 0 });
    const { id } = job();
    server.failNext({ path: `/v1/videos/${id}` }, { status: 503, times: 4 });
    const video = await client.videos.waitForCompletion(id, { ...FAST, waitTimeout: 20_000 });
    expect(video.status).toBe('COMPLETE');
    expect(polls(id)).toBe(5);
  }, 20_000);

  it('ends on 401 and 404 after a single request', async () => {
    const { server, job, polls } = await mock({ processingMs: 0 });
    const { id } = job();
    const wrongKey = new AvatarVideo({ apiKey: 'sk-wrong', baseURL: server.baseURL, logLevel: 'off' });
    closers.push(() => wrongKey.close());
    await expect(wrongKey.videos.waitForCompletion(id, FAST)).rejects.toBeInstanceOf(AuthenticationError);
    expect(polls(id)).toBe(1);
    const right = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
    closers.push(() => right.close());
    await expect(right.videos.waitForCompletion('vid_missing', FAST)).rejects.toBeInstanceOf(NotFoundError);
    expect(server.requests.filter((r) => r.path === '/v1/videos/vid_missing')).toHaveLength(1);
  });
});

describe('server poll hints', () => {
  /** A job that is PROCESSING on the first poll, answered with `headers`, and COMPLETE after. */
  async function hinted(time: FakeTime, headers: Record<string, string>) {
    const { client, times } = await scripted((n) => ({
      body: video('vid_1', { status: n === 0 ? 'PROCESSING' : 'COMPLETE' }),
      headers: n === 0 ? headers : {},
    }));
    await time.run(() => client.videos.waitForCompletion('vid_1'));
    expect(times).toHaveLength(2);
    return time.sleeps();
  }

  it.each(['retry-after', 'x-poll-after'])('waits as long as %s asks, longer than maxPollInterval', async (name) => {
    const time = await fakeTime();
    expect(await hinted(time, { [name]: '12' })).toEqual([12_000]);
  });

  it('waits as little as the server asks, below pollInterval, but never under 50 ms', async () => {
    const time = await fakeTime();
    expect(await hinted(time, { 'x-poll-after': '0.2' })).toEqual([200]);
    expect(await hinted(time, { 'x-poll-after': '0' })).toEqual([50]);
    expect(await hinted(time, { 'retry-after': '0' })).toEqual([50]);
  });

  it('refuses options that would poll in a tight loop', async () => {
    const { client } = await scripted(() => ({ body: video() }));
    await expect(client.videos.waitForCompletion('vid_1', { pollInterval: 0 })).rejects.toThrow(/pollInterval/);
    await expect(client.videos.waitForCompletion('vid_1', { waitTimeout: Number.NaN })).rejects.toThrow(/waitTimeout/);
    await expect(client.videos.waitForCompletion('vid_1', { waitTimeout: 30 * 24 * 3_600_000 })).rejects.toThrow(/waitTimeout/);
  });
});

describe('createAndWait and generate', () => {
  it('createAndWait uploads, then waits; a failure carries the created video', async () => {
    const { server, client } = await mock({ clock: 'real', processingMs: 60 });
    const done = await client.videos.createAndWait({ audio_reference: AUDIO, image_reference: IMAGE }, FAST);
    expect(done.status).toBe('COMPLETE');
    server.enqueueOutcome({ status: 'FAILED', error: { code: 'bad_audio', message: 'Silent audio' } });
    const error = await client.videos.createAndWait({ audio_reference: AUDIO, image_reference: IMAGE }, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoFailedError);
    expect((error as VideoFailedError).video.id).toMatch(/^vid_/);
    expect(server.creates).toBe(2);
  });

  it('generate creates, waits and saves the MP4', async () => {
    const { server, client } = await mock({ clock: 'real', processingMs: 60 });
    const dir = await mkdtemp(join(tmpdir(), 'avatar-generate-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const seen: Video[] = [];
    const etas: Array<number | undefined> = [];
    const result = await client.videos.generate(
      { audio_reference: AUDIO, image_reference: IMAGE },
      {
        output: join(dir, 'out.mp4'),
        ...FAST,
        onProgress: (v, { etaSeconds }) => {
          seen.push(v);
          etas.push(etaSeconds);
        },
      },
    );
    expect(result.video.status).toBe('COMPLETE');
    expect(result.path).toBe(join(dir, 'out.mp4'));
    const saved = await readFile(result.path);
    expect(saved.byteLength).toBe(result.bytes);
    expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const streamed = Buffer.concat(await (await client.videos.content(result.video.id)).body.toArray());
    expect(saved.equals(streamed)).toBe(true);
    expect(seen[0]?.id).toBe(result.video.id);
    expect(etas.at(-1)).toBe(0);
    expect(server.requests.filter((r) => r.origin === 'cdn').every((r) => !r.hasApiKey)).toBe(true);
  });
});
