/**
 * The mock's conveniences for tests: the poll hint that keeps SDK waits fast, uneven progress,
 * per-job processing times, the status on recorded requests and reset().
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AvatarVideo, RateLimitError } from '../../src/index.js';
import { type MockServer, type MockServerOptions, MockState, startMockServer } from '../../src/testing/index.js';
import { checkNoise, noisyProgress } from '../../src/testing/progress.js';
import { useCleanup } from '../helpers/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const AUDIO = join(root, 'examples/media/speech.wav');
const IMAGE = join(root, 'examples/media/portrait.png');

const closers = useCleanup();
async function start(options: MockServerOptions = {}): Promise<MockServer> {
  const server = await startMockServer(options);
  closers.push(server.close);
  return server;
}
const get = (s: MockServer, path: string, key = s.apiKey) => fetch(`${s.baseURL}${path}`, { headers: { 'x-api-key': key } });
/** A job made straight on the state: these tests are about what happens after the upload. */
const newJob = (s: MockServer) =>
  s.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' }).id;
const progressOf = async (s: MockServer, id: string) =>
  ((await (await get(s, `/v1/videos/${id}`)).json()) as { progress: number }).progress;

describe('poll hint', () => {
  it('a PROCESSING video carries x-poll-after of 0.05 s by default; a finished one none', async () => {
    const s = await start({ clock: 'manual' });
    const id = newJob(s);
    expect((await get(s, `/v1/videos/${id}`)).headers.get('x-poll-after')).toBe('0.05');
    s.advance(1_500);
    expect((await get(s, `/v1/videos/${id}`)).headers.get('x-poll-after')).toBeNull();
  });

  it('follows pollAfterMs, and null sends no hint', async () => {
    const slow = await start({ clock: 'manual', pollAfterMs: 250 });
    expect((await get(slow, `/v1/videos/${newJob(slow)}`)).headers.get('x-poll-after')).toBe('0.25');
    await slow.close();
    const none = await start({ clock: 'manual', pollAfterMs: null });
    expect((await get(none, `/v1/videos/${newJob(none)}`)).headers.get('x-poll-after')).toBeNull();
  });

  it('the create answer carries the hint too, and errors do not', async () => {
    const s = await start({ clock: 'manual' });
    const body = new FormData();
    body.append('audio_reference', new Blob([await readFile(AUDIO)]), 'speech.wav');
    body.append('image_reference', new Blob([await readFile(IMAGE)]), 'portrait.png');
    const created = await fetch(`${s.baseURL}/v1/videos`, { method: 'POST', body, headers: { 'x-api-key': s.apiKey } });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-poll-after')).toBe('0.05');
    expect((await get(s, '/v1/videos/vid_missing')).headers.get('x-poll-after')).toBeNull();
  });

  it('an injected 429 or 503 carries retry-after of pollAfterMs unless the test set one', async () => {
    const s = await start({ clock: 'manual' });
    s.failNext({ path: '/v1/videos' }, { status: 503 });
    s.failNext({ path: '/v1/videos' }, { status: 429, headers: { 'Retry-After': '7' } });
    s.failNext({ path: '/v1/videos' }, { status: 500 });
    expect((await get(s, '/v1/videos')).headers.get('retry-after')).toBe('0.05');
    expect((await get(s, '/v1/videos')).headers.get('retry-after')).toBe('7');
    expect((await get(s, '/v1/videos')).headers.get('retry-after')).toBeNull();
    await s.close();
    const none = await start({ clock: 'manual', pollAfterMs: null });
    none.failNext({ path: '/v1/videos' }, { status: 503 });
    expect((await get(none, '/v1/videos')).headers.get('retry-after')).toBeNull();
  });

  it('the SDK retries an injected 503 at the mock hint, not after 0.5 s', async () => {
    const s = await start({ clock: 'manual' });
    const logged: string[] = [];
    const client = new AvatarVideo({
      apiKey: s.apiKey,
      baseURL: s.baseURL,
      logLevel: 'info',
      logger: { debug() {}, info: (line: string) => logged.push(line), warn() {}, error() {} },
    });
    closers.push(() => client.close());
    s.failNext({ path: '/v1/videos' }, { status: 503 });
    await client.videos.list();
    expect(logged).toEqual([expect.stringMatching(/^\[avatar-video\] retrying in 50 ms after 503/)]);
  });

  // A hint shorter than pollInterval wins: with the 2 s default alone, the second poll would find the job done.
  it('an SDK wait with default options polls at the mock hint, not every 2 s', async () => {
    const s = await start({ processingMs: 600 });
    const client = new AvatarVideo({ apiKey: s.apiKey, baseURL: s.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const { id } = await client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE });
    const video = await client.videos.waitForCompletion(id);
    expect(video.status).toBe('COMPLETE');
    const polls = s.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${video.id}`);
    expect(polls.length).toBeGreaterThanOrEqual(3);
  });

  // The create answer's hint sets the first sleep too: without it that sleep is 2 s and one poll finds it done.
  it('createAndWait with default options follows the hint sent with the create answer', async () => {
    const s = await start({ processingMs: 600 });
    const client = new AvatarVideo({ apiKey: s.apiKey, baseURL: s.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const video = await client.videos.createAndWait({ audio_reference: AUDIO, image_reference: IMAGE });
    const polls = s.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${video.id}`);
    expect(polls.length).toBeGreaterThanOrEqual(3);
  });
});

describe('progress', () => {
  it('grows in a straight line over processingMs by default', async () => {
    const s = await start({ clock: 'manual', processingMs: 1_000 });
    const id = newJob(s);
    const seen: number[] = [];
    for (let step = 0; step < 4; step++) {
      seen.push(await progressOf(s, id));
      s.advance(250);
    }
    expect(seen).toEqual([0, 25, 50, 75]);
  });

  it('with progressNoise, moves unevenly, never back, the same way on every run', async () => {
    const run = async () => {
      const s = await start({ clock: 'manual', processingMs: 1_000, progressNoise: 0.8 });
      const ids = [newJob(s), newJob(s)];
      const seen: number[][] = [[], []];
      for (let step = 0; step <= 10; step++) {
        for (const [i, id] of ids.entries()) seen[i]?.push(await progressOf(s, id));
        s.advance(100);
      }
      await s.close();
      return seen;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    for (const series of first) {
      expect(series.slice(1).every((value, i) => value >= (series[i] as number))).toBe(true);
      expect(series.at(-1)).toBe(100);
      expect(series.slice(0, -1)).not.toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    }
    expect(first[0]).not.toEqual(first[1]);
  });

  it('noisyProgress keeps 0 and 1 fixed and never decreases, for any noise and job', () => {
    for (const noise of [0, 0.3, 1]) {
      for (let job = 0; job < 8; job++) {
        expect(noisyProgress(0, noise, job)).toBe(0);
        expect(noisyProgress(1, noise, job)).toBeCloseTo(1, 12);
        let previous = 0;
        for (let f = 0; f <= 1; f += 0.01) {
          const value = noisyProgress(f, noise, job);
          expect(value).toBeGreaterThanOrEqual(previous - 1e-12);
          previous = value;
        }
      }
    }
    expect(noisyProgress(0.5, 0.5, 0)).toBeCloseTo(0.5 + 0.5 / Math.PI, 12);
    expect(() => checkNoise(1.5)).toThrow(/progressNoise must be from 0 to 1/);
  });

  it('processingMs may be a function of the job index', async () => {
    const s = await start({ clock: 'manual', processingMs: (index) => (index + 1) * 100 });
    const [quick, slow] = [newJob(s), newJob(s)];
    s.advance(100);
    expect(s.getVideo(quick as string)?.status).toBe('COMPLETE');
    expect(s.getVideo(slow as string)).toMatchObject({ status: 'PROCESSING', progress: 50 });
    s.reset();
    expect(s.getVideo(newJob(s))?.status).toBe('PROCESSING'); // index 0 again: 100 ms
  });
});

describe('QUEUED first (queuedMs) and the share link', () => {
  const look = async (s: MockServer, id: string) => {
    const answer = await get(s, `/v1/videos/${id}`);
    return { hint: answer.headers.get('x-poll-after'), ...((await answer.json()) as Record<string, unknown>) };
  };

  it('shows each job QUEUED (progress null, the poll hint sent) for queuedMs, then PROCESSING from 0 over the rest', async () => {
    const s = await start({ clock: 'manual', processingMs: 1_000, queuedMs: 400 });
    const id = newJob(s);
    expect(await look(s, id)).toMatchObject({ status: 'QUEUED', progress: null, hint: '0.05' });
    s.advance(399);
    expect(await look(s, id)).toMatchObject({ status: 'QUEUED', progress: null });
    s.advance(1);
    expect(await look(s, id)).toMatchObject({ status: 'PROCESSING', progress: 0, hint: '0.05' });
    s.advance(300);
    expect(await look(s, id)).toMatchObject({ status: 'PROCESSING', progress: 50 });
    s.advance(300);
    expect(await look(s, id)).toMatchObject({ status: 'COMPLETE', progress: 100, hint: null });
  });

  it('a COMPLETE video carries share_link_url, as the service shows it; one not finished has none', async () => {
    const s = await start({ clock: 'manual', processingMs: 100 });
    const id = newJob(s);
    expect(await look(s, id)).not.toHaveProperty('share_link_url');
    s.advance(100);
    expect(await look(s, id)).toMatchObject({ status: 'COMPLETE', share_link_url: `https://share.mock.invalid/videos/${id}` });
    const listed = (await (await get(s, '/v1/videos')).json()) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ id, share_link_url: expect.stringContaining(id) });
  });

  it('queuedMs may be a function of the job index; at least processingMs keeps a job QUEUED until it ends', async () => {
    const s = await start({ clock: 'manual', processingMs: 1_000, queuedMs: (index) => (index === 0 ? 5_000 : 0) });
    s.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face found.' } });
    const [waiting, started] = [newJob(s), newJob(s)];
    s.advance(500);
    expect(s.getVideo(waiting)).toMatchObject({ status: 'QUEUED', progress: null });
    expect(s.getVideo(started)).toMatchObject({ status: 'PROCESSING', progress: 50 });
    s.advance(500);
    // It never left the queue: FAILED with no progress reached.
    expect(s.getVideo(waiting)).toMatchObject({ status: 'FAILED', progress: null });
    expect(s.getVideo(started)).toMatchObject({ status: 'COMPLETE' });
  });

  it('refuses a queuedMs that is not a time', () => {
    for (const queuedMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new MockState({ queuedMs })).toThrow(/queuedMs must be/);
    }
    expect(new MockState().options.queuedMs).toBe(0);
  });
});

describe('recorded requests and reset', () => {
  it('each recorded request carries the status the mock answered with', async () => {
    const s = await start({ clock: 'manual' });
    const id = newJob(s);
    s.failNext({ path: '/v1/videos' }, { status: 503 });
    await get(s, '/v1/videos');
    await get(s, `/v1/videos/${id}`);
    await get(s, `/v1/videos/${id}`, 'wrong-key');
    await get(s, '/v1/videos/vid_missing');
    await get(s, `/v1/videos/${id}/content`);
    expect(s.requests.map((r) => r.status)).toEqual([503, 200, 401, 404, 409]);
  });

  it('reset() forgets jobs, requests, queued outcomes and injected failures', async () => {
    const s = await start({ clock: 'manual', processingMs: 100 });
    const old = newJob(s);
    s.enqueueOutcome({ status: 'CANCELLED' });
    s.failNext({ method: 'GET' }, { status: 500, times: 5 });
    await get(s, '/v1/videos');
    s.reset();
    expect(s.requests).toEqual([]);
    expect(s.creates).toBe(0);
    expect(await (await get(s, '/v1/videos')).json()).toEqual([]);
    expect((await get(s, `/v1/videos/${old}`)).status).toBe(404);
    const fresh = newJob(s);
    s.advance(100);
    expect(s.getVideo(fresh)?.status).toBe('COMPLETE');
    expect(s.requests.map((r) => r.status)).toEqual([200, 404]);
  });
});

describe('limits for testing batch code', () => {
  const params = { audio_reference: AUDIO, image_reference: IMAGE };

  it('concurrencyLimit: a create beyond it answers 429 with the time until a job ends, then is accepted', async () => {
    const s = await start({ clock: 'manual', processingMs: 4_000, concurrencyLimit: 2 });
    const client = new AvatarVideo({ apiKey: s.apiKey, baseURL: s.baseURL, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    await client.videos.create(params);
    s.advance(1_000);
    await client.videos.create(params);
    const refused = await client.videos.create(params).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfter: 3_000 });
    expect(s.throttledCreates).toBe(1);
    s.advance(3_000); // the first job has ended: its place is free
    await expect(client.videos.create(params)).resolves.toMatchObject({ status: 'PROCESSING' });
    expect(s.creates).toBe(3);
  });

  it("createRate: a create beyond the window answers the service's 429 body, without Retry-After unless asked", async () => {
    const s = await start({ clock: 'manual', processingMs: 100, createRate: { limit: 2, windowSeconds: 6 } });
    const client = new AvatarVideo({ apiKey: s.apiKey, baseURL: s.baseURL, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    await client.videos.create(params);
    s.advance(2_000);
    await client.videos.create(params);
    s.advance(3_000); // both jobs have ended: only the rate refuses
    const refused = await client.videos.create(params).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded', message: expect.stringContaining('Rate limit exceeded.') });
    expect((refused as RateLimitError).retryAfter).toBeUndefined();
    expect((refused as RateLimitError).body).toEqual({ error: { type: 'rate_limit_exceeded', message: 'Rate limit exceeded.' } });
    s.advance(1_000); // the first create has left the window; the second has not
    await client.videos.create(params);
    await expect(client.videos.create(params)).rejects.toBeInstanceOf(RateLimitError);
    expect([s.creates, s.throttledCreates]).toEqual([3, 2]);
  });

  it('createRate with retryAfter: the 429 says when the oldest create leaves the window', async () => {
    const s = await start({ clock: 'manual', processingMs: 100, createRate: { limit: 1, windowSeconds: 60, retryAfter: true } });
    const client = new AvatarVideo({ apiKey: s.apiKey, baseURL: s.baseURL, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    await client.videos.create(params);
    s.advance(45_500);
    await expect(client.videos.create(params)).rejects.toMatchObject({ status: 429, retryAfter: 14_500 });
    expect(() => new MockState({ createRate: { limit: 0, windowSeconds: 60 } })).toThrow(/createRate must be/);
  });

  it('rateLimitFailureRate: that share of jobs ends FAILED with rate_limit_exceeded, the same ones for the same seed', async () => {
    const outcomes = async (seed: number) => {
      const s = await start({ clock: 'manual', processingMs: 100, rateLimitFailureRate: 0.3, seed });
      const ids = Array.from({ length: 200 }, () => newJob(s));
      s.advance(100);
      const ended = ids.map((id) => s.getVideo(id)).map((v) => (v?.status === 'FAILED' ? v.error?.code : v?.status));
      await s.close();
      return ended;
    };
    const first = await outcomes(11);
    const failed = first.filter((status) => status === 'rate_limit_exceeded').length;
    expect(first.filter((status) => status !== 'COMPLETE' && status !== 'rate_limit_exceeded')).toEqual([]);
    expect(failed).toBeGreaterThan(200 * 0.2);
    expect(failed).toBeLessThan(200 * 0.4);
    expect(await outcomes(11)).toEqual(first);
  });
});
