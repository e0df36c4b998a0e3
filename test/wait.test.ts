import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
} from '../src/index.js';
import { nextPollDelay, pollHint } from '../src/lib/wait.js';
import { type MockServerOptions, startMockServer } from '../src/testing/index.js';
import { json, rawServer, video } from './helpers/raw-server.js';

const FAST = { pollInterval: 10, maxPollInterval: 40 };
const IMAGE = new URL('./fixtures/mock/landscape.jpg', import.meta.url);
const AUDIO = new URL('./fixtures/mock/tone-2s.mp3', import.meta.url);

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

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
    const { server, client, job, polls } = await mock();
    const { id } = job();
    const seen: string[] = [];
    const done = client.videos.waitForCompletion(id, { ...FAST, onProgress: (v) => seen.push(`${v.status} ${v.progress}`) });
    await until(() => polls(id) >= 3);
    server.advance(750);
    await until(() => seen.length >= 2);
    const pollsAtHalf = polls(id);
    await until(() => polls(id) >= pollsAtHalf + 3);
    server.advance(1_000);
    const video = await done;
    expect(video).toMatchObject({ id, status: 'COMPLETE', progress: 100 });
    expect(seen).toEqual(['PROCESSING 0', 'PROCESSING 50', 'COMPLETE 100']);
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
    const statuses = ['QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'COMPLETE'];
    const { client, times } = await scripted((n) => ({ body: video('vid_1', { status: statuses[n] ?? 'COMPLETE' }) }));
    const result = await client.videos.waitForCompletion('vid_1', { pollInterval: 40, maxPollInterval: 1_000 });
    expect(result.status).toBe('COMPLETE');
    expect(times).toHaveLength(6);
    const gaps = times.slice(1).map((time, i) => time - (times[i] as number));
    // 40 ms growing by 1.5x, each shortened by at most 25% jitter.
    const floors = gaps.map((_, i) => 40 * 1.5 ** i * 0.75 - 2);
    expect(gaps.every((gap, i) => gap >= (floors[i] as number))).toBe(true);
    expect(gaps.at(-1)).toBeGreaterThan(gaps[0] as number);
  });
});

describe('deadline and abort', () => {
  it('throws WaitTimeoutError with the last video seen when the deadline passes', async () => {
    const { client, job } = await mock();
    const { id } = job();
    const started = performance.now();
    const error = await client.videos.waitForCompletion(id, { ...FAST, waitTimeout: 150 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ timeout: 150, video: { id, status: 'PROCESSING' } });
    expect(elapsed).toBeGreaterThanOrEqual(145);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('ends at the deadline even while a poll hangs (the poll timeout never exceeds what is left)', async () => {
    const { client } = await scripted(() => 'hang');
    const started = performance.now();
    const error = await client.videos.waitForCompletion('vid_1', { ...FAST, waitTimeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).video).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('stops at once when aborted during a sleep', async () => {
    const { client, job, polls } = await mock();
    const { id } = job();
    const controller = new AbortController();
    const done = client.videos.waitForCompletion(id, { pollInterval: 10_000, signal: controller.signal });
    await until(() => polls(id) === 1);
    const aborted = performance.now();
    controller.abort();
    await expect(done).rejects.toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - aborted).toBeLessThan(200);
    expect(polls(id)).toBe(1);
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
  it.each(['retry-after', 'x-poll-after'])('waits as long as %s asks', async (name) => {
    const { client, times } = await scripted((n) => ({
      body: video('vid_1', { status: n === 0 ? 'PROCESSING' : 'COMPLETE' }),
      headers: n === 0 ? { [name]: '1' } : {},
    }));
    await client.videos.waitForCompletion('vid_1', FAST);
    expect(times).toHaveLength(2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(995);
  });

  it('computes delays with jitter, backoff caps and hint floors', () => {
    expect(nextPollDelay(1_000, undefined, 100, () => 0)).toBe(1_000);
    expect(nextPollDelay(1_000, undefined, 100, () => 1)).toBe(750);
    expect(new Set([0.1, 0.5, 0.9].map((r) => nextPollDelay(1_000, undefined, 100, () => r))).size).toBe(3);
    expect(nextPollDelay(1_000, 5_000, 100, () => 0)).toBe(5_000);
    expect(nextPollDelay(1_000, 5_000, 100, () => 1)).toBe(5_500);
    expect(nextPollDelay(1_000, 0, 100, () => 0)).toBe(100);
    expect(pollHint({ 'retry-after': '2' })).toBe(2_000);
    expect(pollHint({ 'x-poll-after': '0.5' })).toBe(500);
    expect(pollHint({ 'retry-after': 'soon' })).toBeUndefined();
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
    const result = await client.videos.generate(
      { audio_reference: AUDIO, image_reference: IMAGE },
      { output: join(dir, 'out.mp4'), ...FAST, onProgress: (v) => seen.push(v) },
    );
    expect(result.video.status).toBe('COMPLETE');
    expect(result.path).toBe(join(dir, 'out.mp4'));
    const saved = await readFile(result.path);
    expect(saved.byteLength).toBe(result.bytes);
    expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const streamed = Buffer.concat(await (await client.videos.content(result.video.id)).body.toArray());
    expect(saved.equals(streamed)).toBe(true);
    expect(seen[0]?.id).toBe(result.video.id);
    expect(server.requests.filter((r) => r.origin === 'cdn').every((r) => !r.hasApiKey)).toBe(true);
  });
});
