import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AvatarVideo, type ClientOptions, InvalidArgumentError, RateLimitError } from '../../src/index.js';
import { BETA, initialConcurrency, nextConcurrency } from '../../src/internal/adaptive-concurrency.js';
import { ConcurrencyLimiter } from '../../src/internal/concurrency-limiter.js';
import { MAX_REFUSED_CREATES } from '../../src/lib/job-policy.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

// How the client's job limit hears of refused creates: from the job runner alone, once per 429, dated by when its
// request was sent; the plain `videos.create` makes no job of the client's and teaches the limit nothing.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const params = { audio_reference: new Uint8Array([1, 2, 3]), image_reference: png };
const BOUNDS = { min: 1, max: 64 };
const refusal = { error: { code: 'rate_limit_exceeded', message: 'too many jobs' } };

const closers = useCleanup();
afterEach(async () => {
  vi.restoreAllMocks();
});

/** A client on a raw server, and every call the client's limiter gets to `throttled` (with the limiter's clock then). */
async function setup(handler: Parameters<typeof rawServer>[0], maxRetries = 2, options: ClientOptions = {}) {
  const throttles: Array<{ retryAfter: number | undefined; startedAt: number; at: number }> = [];
  const original = ConcurrencyLimiter.prototype.throttled;
  vi.spyOn(ConcurrencyLimiter.prototype, 'throttled').mockImplementation(function (this: ConcurrencyLimiter, retryAfter, startedAt) {
    throttles.push({ retryAfter, startedAt: startedAt ?? Number.NaN, at: this.now() });
    original.call(this, retryAfter, startedAt);
  });
  const server = await rawServer(handler);
  const client = new AvatarVideo({ apiKey: 'sk-throttle-test', baseURL: server.url, logLevel: 'off', maxRetries, ...options });
  closers.push(server.close, () => client.close());
  return { server, client, throttles };
}

/** Answers a GET of a video COMPLETE, as a job that ended at once. */
const complete = (req: { url?: string | undefined }, res: ServerResponse) =>
  json(res, 200, video((req.url ?? '').split('/').pop(), { status: 'COMPLETE' }));

describe('refused creates and the client limit', () => {
  it('a 429 whose Retry-After is beyond maxRetryDelay fails at once, reported once, by the runner alone', async () => {
    const { server, client, throttles } = await setup((_req, res) => json(res, 429, refusal, { 'retry-after': '120' }));
    await expect(client.videos.createAndWait(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    expect(throttles.map((t) => t.retryAfter)).toEqual([120_000]);
    // The plain endpoint makes no job of its own: the limit hears nothing of it.
    await expect(client.videos.create(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(2);
    expect(throttles).toHaveLength(1);
  });

  it('every 429 of a job’s creates is reported once; the plain create keeps its own retries and reports none', async () => {
    const { server, client, throttles } = await setup((_req, res) => json(res, 429, refusal, { 'retry-after': '0' }));
    // maxRetries bounds the requests that are not creates: the runner sends refused creates again up to its own budget.
    await expect(client.videos.createAndWait(params, { validate: false, maxRetries: 0 })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(MAX_REFUSED_CREATES + 1);
    expect(throttles).toHaveLength(MAX_REFUSED_CREATES + 1);
    await expect(client.videos.create(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(MAX_REFUSED_CREATES + 1 + 3);
    expect(throttles).toHaveLength(MAX_REFUSED_CREATES + 1);
  });

  it('a burst of creates refused together cuts the limit once: each refusal is dated by when its request was sent', async () => {
    const held: ServerResponse[] = [];
    const { client, throttles } = await setup(
      async (req, res, index) => {
        await new Promise((resolve) => req.on('end', resolve).resume());
        if (req.method === 'GET') return complete(req, res);
        if (index >= 3) return json(res, 200, video(`vid_${index}`));
        // The three first creates are answered together, once all three were sent.
        held.push(res);
        if (held.length === 3) for (const waiting of held) json(waiting, 429, refusal, { 'retry-after': '0' });
      },
      2,
      { jobConcurrency: 3 },
    );
    const made = await Promise.all([1, 2, 3].map(() => client.videos.createAndWait(params, { validate: false, pollInterval: 10 })));
    expect(made.map((m) => m.status)).toEqual(['COMPLETE', 'COMPLETE', 'COMPLETE']);
    expect(throttles).toHaveLength(3);
    expect(throttles.every((t) => t.startedAt < t.at)).toBe(true);
    // Every refusal answers a request sent before the first of them was reported, so the first cut answers all three.
    const firstReport = Math.min(...throttles.map((t) => t.at));
    expect(throttles.every((t) => t.startedAt < firstReport)).toBe(true);
    const replayed = throttles.reduce(
      (state, t) => nextConcurrency(state, { type: 'throttled', cause: 'refused', at: t.at, startedAt: t.startedAt, running: 0 }, BOUNDS),
      initialConcurrency(8),
    );
    expect(replayed.limit).toBeCloseTo(8 * BETA);
  });
});

describe('client.jobConcurrency', () => {
  it('shows the limit, the jobs running and the last refused create', async () => {
    const { client } = await setup((_req, res) => json(res, 429, refusal, { 'retry-after': '120' }));
    expect(client.jobConcurrency).toEqual({ limit: 2, running: 0 });
    await expect(client.videos.createAndWait(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(client.jobConcurrency).toMatchObject({ limit: 1, running: 0, lastThrottle: { cause: 'refused', retryAfterMs: 120_000 } });
    expect(client.jobConcurrency.lastThrottle?.at).toBeInstanceOf(Date);
  });

  it('a fixed jobConcurrency runs that many jobs of the client at once, and a bad one is refused', async () => {
    // Each job is COMPLETE at its first poll; with one place, the second create waits until the first job has ended.
    const { server, client } = await setup((req, res, index) =>
      json(
        res,
        200,
        video(req.method === 'POST' ? `vid_${index}` : (req.url ?? '').split('/').pop(), {
          status: req.method === 'POST' ? 'PROCESSING' : 'COMPLETE',
        }),
      ),
    );
    const fixed = new AvatarVideo({ apiKey: 'sk-throttle-test', baseURL: server.url, logLevel: 'off', jobConcurrency: 1 });
    closers.push(() => fixed.close());
    expect(fixed.jobConcurrency.limit).toBe(1);
    const fast = { validate: false, pollInterval: 10 };
    await Promise.all([fixed.videos.createAndWait(params, fast), fixed.videos.createAndWait(params, fast)]);
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'POST', 'GET']);
    expect(client.jobConcurrency.limit).toBe(2);
    for (const bad of [0, 2.5, 'many']) {
      const options = { apiKey: 'k-123456', baseURL: server.url, jobConcurrency: bad as number };
      expect(() => new AvatarVideo(options)).toThrow(InvalidArgumentError);
    }
  });
});
