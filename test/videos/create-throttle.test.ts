import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { AvatarVideo, type ClientOptions, InvalidArgumentError, RateLimitError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

// How the client's job limit hears of refused creates, as `client.jobConcurrency` shows it: from the job runner alone,
// dated by when each create was sent; the plain `videos.create` makes no job of the client's and teaches the limit
// nothing. That the runner tells the limiter once per 429 is test/policies/run-job.test.ts's.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const params = { audio_reference: new Uint8Array([1, 2, 3]), image_reference: png };
const refusal = { error: { code: 'rate_limit_exceeded', message: 'too many jobs' } };

/** Refused creates the job runner sends again for one video, as the README and docs/retry-budgets.md give it. */
const MAX_REFUSED_CREATES = 20;

const closers = useCleanup();

/** A client on a raw server. */
async function setup(handler: Parameters<typeof rawServer>[0], maxRetries = 2, options: ClientOptions = {}) {
  const server = await rawServer(handler);
  const client = new AvatarVideo({ apiKey: 'sk-throttle-test', baseURL: server.url, logLevel: 'off', maxRetries, ...options });
  closers.push(server.close, () => client.close());
  return { server, client };
}

/** Answers a GET of a video COMPLETE, as a job that ended at once. */
const complete = (req: { url?: string | undefined }, res: ServerResponse) =>
  json(res, 200, video((req.url ?? '').split('/').pop(), { status: 'COMPLETE' }));

/** Resolves once the request's whole body has arrived. */
const bodyOf = (req: IncomingMessage) => new Promise((resolve) => req.on('end', resolve).resume());

describe('refused creates and the client limit', () => {
  it('a 429 whose Retry-After is beyond maxRetryDelay fails at once, reported by the runner alone', async () => {
    // The job's create is refused for 120 s, the plain create's for 300 s: the limit shows which it heard of.
    const { server, client } = await setup((_req, res, index) => json(res, 429, refusal, { 'retry-after': index === 0 ? '120' : '300' }));
    await expect(client.videos.createAndWait(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    const heard = client.jobConcurrency;
    expect(heard).toMatchObject({ limit: 1, running: 0, lastThrottle: { cause: 'refused', retryAfterMs: 120_000 } });
    // The plain endpoint makes no job of its own: the limit hears nothing of it.
    await expect(client.videos.create(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(2);
    expect(client.jobConcurrency).toEqual(heard);
  });

  it('each of a job’s refused creates reaches the limit; the plain create keeps its own retries and reports none', async () => {
    // The job's creates are refused with no wait, the plain create's with a wait of 1 ms.
    const jobCreates = MAX_REFUSED_CREATES + 1;
    const { server, client } = await setup(
      (_req, res, index) => json(res, 429, refusal, { 'retry-after': index < jobCreates ? '0' : '0.001' }),
      0,
    );
    // maxRetries bounds the requests that are not creates: the runner sends refused creates again up to its own budget.
    await expect(client.videos.createAndWait(params, { validate: false })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(jobCreates);
    const heard = client.jobConcurrency;
    expect(heard).toMatchObject({ limit: 1, running: 0, lastThrottle: { cause: 'refused', retryAfterMs: 0 } });
    await expect(client.videos.create(params, { validate: false, maxRetries: 2 })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(jobCreates + 3);
    expect(client.jobConcurrency).toEqual(heard);
  });

  it('a burst of creates refused together cuts the limit once: each refusal is dated by when its request was sent', async () => {
    // Seven jobs are created side by side and run until each was polled: the limit, starting at 2, grows to one
    // above the seven the service accepted at once. Then three creates are refused together, once all three were
    // sent; the three made again are held until the test has read the limit.
    const WARM = 7;
    const held: ServerResponse[] = [];
    let accepted = 0;
    const polled = new Set<string>();
    let letThrough!: () => void;
    const later = new Promise<void>((resolve) => {
      letThrough = resolve;
    });
    const service: Parameters<typeof rawServer>[0] = async (req, res, index) => {
      await bodyOf(req);
      if (req.method === 'GET') {
        // A job polled was accepted, as the client saw it: none ends before all seven were.
        polled.add(req.url ?? '');
        return polled.size < WARM ? json(res, 200, video((req.url ?? '').split('/').pop())) : complete(req, res);
      }
      if (accepted >= WARM && held.length < 3) {
        held.push(res);
        if (held.length === 3) for (const waiting of held) json(waiting, 429, refusal, { 'retry-after': '0' });
        return;
      }
      if (accepted >= WARM) await later;
      accepted += 1;
      json(res, 200, video(`vid_${index}`));
    };
    // The runner says at info level that it creates again after each refusal, once the limit has heard of it.
    const madeAgain: string[] = [];
    const quiet = () => {};
    const logger = { debug: quiet, warn: quiet, error: quiet, info: (line: string) => void madeAgain.push(line) };
    // A declared create rate the burst fits: without one, the create-rate gate sends one create at a time until a
    // 429 teaches it the rate, and three creates would never be on the wire together.
    const createRate = { limit: 100, windowSeconds: 1 };
    const { client } = await setup(service, 2, { logger, logLevel: 'info', createRate });
    const fast = { validate: false, pollInterval: 10 };
    await Promise.all(Array.from({ length: WARM }, () => client.videos.createAndWait(params, fast)));
    expect(client.jobConcurrency).toEqual({ limit: WARM + 1, running: 0 });

    const burst = Promise.all([1, 2, 3].map(() => client.videos.createAndWait(params, fast)));
    try {
      await vi.waitFor(() => expect(madeAgain.filter((line) => line.includes('creating again'))).toHaveLength(3));
      // One cut of the 8 places, to 70% of them (5.6, shown as 5), answers all three: each refusal answers a request
      // sent before the first of them was reported. Dated by their answers, the second and third would cut again (to 2).
      expect(client.jobConcurrency).toMatchObject({ limit: 5, lastThrottle: { cause: 'refused', retryAfterMs: 0 } });
    } finally {
      letThrough();
    }
    const made = await burst;
    expect(made.map((m) => m.status)).toEqual(['COMPLETE', 'COMPLETE', 'COMPLETE']);
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
