/**
 * One regime for every job, against the mock over loopback: `generate`, a batch item and a long video's segment
 * alike have their refused creates sent again by the job runner (not by `maxRetries`), wait a Retry-After holding no
 * place of the client's limit, and teach that limit; `maxJobAttempts` bounds the jobs made for one video, and the
 * old names of that budget (and of a batch's width) still work, with one warning each.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AvatarVideo, InvalidArgumentError, RateLimitError, SegmentFailedError, VideoFailedError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';

/** Refused creates the job runner sends again for one video, as the README and docs/retry-budgets.md give it. */
const MAX_REFUSED_CREATES = 20;

const closers = useCleanup();
let mock: MockServer;
let client: AvatarVideo;
let dir: string;
const warnings: string[] = [];

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 100 });
  const logger = { debug() {}, info() {}, warn: (line: string) => void warnings.push(line), error() {} };
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logger });
  dir = await mkdtemp(join(tmpdir(), 'avatar-runner-'));
  closers.push(
    () => rm(dir, { recursive: true, force: true }),
    () => mock.close(),
    () => client.close(),
  );
});
afterEach(() => {
  warnings.splice(0);
});

const fast = { pollInterval: 20, maxPollInterval: 40 };
const IMAGE = mockFixture('portrait.png');
const params = () => ({ audio_reference: wav(1), image_reference: IMAGE });
const RATE_LIMITED = { status: 'FAILED' as const, error: { code: 'rate_limit_exceeded', message: 'Too many jobs.' } };
const posts = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos');

/** Refuse the next `times` creates with 429 and a Retry-After of `seconds`. */
const refuse = (times: number, seconds: number) =>
  mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': String(seconds) }, times });

/**
 * Samples the client's running jobs while a refused create waits out its Retry-After of 300 ms: from 50 ms after the
 * last create was seen answered 429 (its answer has reached the SDK) to 250 ms (before the next create takes its
 * place). Stop it for the samples.
 */
function sampleRefusedWaits(): () => number[] {
  const samples: number[] = [];
  let refusedAt: { count: number; at: number } | undefined;
  const timer = setInterval(() => {
    const sent = posts();
    const last = sent.at(-1);
    if (last?.status !== 429) return;
    if (refusedAt?.count !== sent.length) refusedAt = { count: sent.length, at: performance.now() };
    else if (Math.abs(performance.now() - refusedAt.at - 150) < 100) samples.push(client.jobConcurrency.running);
  }, 5);
  return () => {
    clearInterval(timer);
    return samples;
  };
}

describe('a refused create, the same for every job', () => {
  it('generate: sent again by the runner whatever maxRetries says, each Retry-After waited without a place, the limit told', async () => {
    refuse(3, 0.3);
    const stop = sampleRefusedWaits();
    const made = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), ...fast, maxRetries: 0 });
    const samples = stop();
    expect(made.video.status).toBe('COMPLETE');
    expect(posts().map((r) => r.status)).toEqual([429, 429, 429, 200]);
    expect(mock.creates).toBe(1);
    expect(samples.length).toBeGreaterThan(10);
    expect(new Set(samples)).toEqual(new Set([0]));
    expect(client.jobConcurrency.lastThrottle).toMatchObject({ cause: 'refused', retryAfterMs: 300 });
  });

  it('generate: the refusals have the runner’s budget, not maxRetries: each create is one request', async () => {
    refuse(100, 0);
    const error = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), maxRetries: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(posts()).toHaveLength(MAX_REFUSED_CREATES + 1);
    expect(mock.creates).toBe(0);
  });

  it('a batch item: the same regime', async () => {
    refuse(3, 0.3);
    const stop = sampleRefusedWaits();
    const summary = await client.videos.generateBatch([{ key: 'a', ...params() }], { outputDir: join(dir, 'out'), ...fast });
    const samples = stop();
    expect(summary).toMatchObject({ completed: 1, failed: 0 });
    expect(posts().map((r) => r.status)).toEqual([429, 429, 429, 200]);
    expect(samples.length).toBeGreaterThan(10);
    expect(new Set(samples)).toEqual(new Set([0]));
    expect(client.jobConcurrency.lastThrottle).toMatchObject({ cause: 'refused', retryAfterMs: 300 });
  });

  it('a long video’s segment: the same regime, maxRetries no part of it', async () => {
    const audio = join(dir, 'long.wav');
    await writeFile(audio, speechLikeWav(100));
    refuse(3, 0.3);
    const stop = sampleRefusedWaits();
    // One segment in hand at a time, so that no other job runs while the first one's create is refused.
    const options = { output: join(dir, 'long.mp4'), ...fast, concurrency: 1, maxRetries: 0 };
    const made = await client.videos.generateLong({ audio_reference: audio, image_reference: IMAGE }, options);
    const samples = stop();
    expect(made.segments).toHaveLength(2);
    expect(posts().map((r) => r.status)).toEqual([429, 429, 429, 200, 200]);
    expect(samples.length).toBeGreaterThan(10);
    expect(new Set(samples)).toEqual(new Set([0]));
    expect(client.jobConcurrency.lastThrottle).toMatchObject({ cause: 'refused', retryAfterMs: 300 });
  });
});

describe('maxRetries, honoured where it is accepted', () => {
  /** The next request for a video's content is answered 503 (no wait): one retry of the download's open covers it. */
  const failContentOnce = () =>
    mock.failNext({ method: 'GET', path: /\/v1\/videos\/[^/]+\/content$/ }, { status: 503, headers: { 'retry-after': '0' }, times: 1 });

  it('createAndWait refuses it, saying where it applies (the runner alone sends a refused create again): nothing is sent', async () => {
    const error = await client.videos.createAndWait(params(), { ...fast, maxRetries: 0 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument: 'maxRetries' });
    expect((error as Error).message).toMatch(/^videos\.createAndWait: maxRetries does not apply here: .*job runner.*videos\.create/);
    expect(mock.requests).toHaveLength(0);
    // Unset, it is no option at all.
    await expect(client.videos.createAndWait(params(), { ...fast, maxRetries: undefined } as never)).resolves.toMatchObject({
      status: 'COMPLETE',
    });
  });

  it('generate’s is its download’s: a refused content request is retried by default, not with maxRetries: 0', async () => {
    failContentOnce();
    await expect(client.videos.generate(params(), { output: join(dir, 'default.mp4'), ...fast })).resolves.toMatchObject({
      video: { status: 'COMPLETE' },
    });
    failContentOnce();
    const error = await client.videos.generate(params(), { output: join(dir, 'none.mp4'), ...fast, maxRetries: 0 }).catch((e) => e);
    expect(error).toMatchObject({ status: 503, videoId: expect.any(String) });
  });

  it('generateLong’s is its segments’ downloads’', async () => {
    const audio = join(dir, 'long.wav');
    await writeFile(audio, speechLikeWav(100));
    const long = (name: string, maxRetries: number) =>
      client.videos.generateLong(
        { audio_reference: audio, image_reference: IMAGE },
        { output: join(dir, name), ...fast, concurrency: 1, maxRetries },
      );
    failContentOnce();
    await expect(long('one.mp4', 1)).resolves.toMatchObject({ segments: [{ status: 'COMPLETE' }, { status: 'COMPLETE' }] });
    failContentOnce();
    await expect(long('none.mp4', 0)).rejects.toMatchObject({ status: 503, videoId: expect.any(String) });
  });
});

describe('maxJobAttempts', () => {
  it('bounds the jobs generate makes for one video: 3 by default, or as given', async () => {
    for (let i = 0; i < 5; i++) mock.enqueueOutcome(RATE_LIMITED);
    const limited = await client.videos.generate(params(), { output: join(dir, 'a.mp4'), ...fast, maxJobAttempts: 2 }).catch((e) => e);
    expect(limited).toBeInstanceOf(VideoFailedError);
    expect(mock.creates).toBe(2);
    const byDefault = await client.videos.generate(params(), { output: join(dir, 'b.mp4'), ...fast }).catch((e) => e);
    expect(byDefault).toBeInstanceOf(VideoFailedError);
    expect(mock.creates).toBe(5);
    expect(byDefault.videoId).toBe(mock.state.listVideos()[0]?.id);
  });

  it('bounds createAndWait’s jobs too', async () => {
    mock.enqueueOutcome(RATE_LIMITED);
    const made = await client.videos.createAndWait(params(), fast);
    expect(made.status).toBe('COMPLETE');
    expect(mock.creates).toBe(2);
    mock.enqueueOutcome(RATE_LIMITED);
    await expect(client.videos.createAndWait(params(), { ...fast, maxJobAttempts: 1 })).rejects.toBeInstanceOf(VideoFailedError);
    expect(mock.creates).toBe(3);
  });
});

describe('deprecated names, kept one minor version', () => {
  const warned = (name: string) => warnings.filter((line) => line.includes(`option ${name} is deprecated`));

  it('generateBatch’s maxAttempts is maxJobAttempts, with one warning however many calls pass it', async () => {
    for (const run of [1, 2]) {
      mock.enqueueOutcome(RATE_LIMITED);
      const summary = await client.videos.generateBatch([{ key: `k${run}`, ...params() }], {
        outputDir: join(dir, `out${run}`),
        ...fast,
        maxAttempts: 1,
      });
      expect(summary).toMatchObject({ failed: 1 });
      expect(mock.creates).toBe(run);
    }
    expect(warned('maxAttempts')).toHaveLength(1);
    expect(warned('maxAttempts')[0]).toContain('maxJobAttempts');
  });

  it('generateLong’s maxSegmentAttempts is maxJobAttempts, with one warning', async () => {
    const audio = join(dir, 'long.wav');
    await writeFile(audio, speechLikeWav(100));
    for (const run of [1, 2]) {
      mock.enqueueOutcome(RATE_LIMITED);
      const options = {
        output: join(dir, `long${run}.mp4`),
        workDir: join(dir, `work${run}`),
        ...fast,
        concurrency: 1,
        maxSegmentAttempts: 1,
      };
      const error = await client.videos.generateLong({ audio_reference: audio, image_reference: IMAGE }, options).catch((e) => e);
      expect(error).toBeInstanceOf(SegmentFailedError);
      expect(error.message).toContain('failed 1 time(s)');
    }
    expect(warned('maxSegmentAttempts')).toHaveLength(1);
  });

  it('generateBatch’s maxConcurrency is its width, concurrency, with one warning', async () => {
    let peak = 0;
    const items = ['a', 'b', 'c'].map((key) => ({ key, ...params() }));
    const options = {
      outputDir: join(dir, 'out'),
      ...fast,
      maxConcurrency: 1,
      onRunProgress: (p: { running: number }) => {
        peak = Math.max(peak, p.running);
      },
    };
    const summary = await client.videos.generateBatch(items, options);
    expect(summary).toMatchObject({ completed: 3 });
    expect(peak).toBe(1);
    expect(warned('maxConcurrency')).toHaveLength(1);
    expect(warned('maxConcurrency')[0]).toContain('use concurrency');
  });
});
