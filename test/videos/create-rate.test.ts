/**
 * The client's create-rate gate over real sockets, against the mock's create rate (2 creates per 1 s here, the
 * service's 2 a minute scaled down): a declared rate sends no create the window refuses; without one, a 429 teaches
 * the gate, with or without Retry-After, and `client.createRate` shows it; the environment's rate, and a create
 * stopped while it waits at the gate. The policy's rules themselves are test/policies/create-pacing.test.ts's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APIUserAbortError, AvatarVideo, type ClientOptions, InvalidArgumentError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';

const RATE = { limit: 2, windowSeconds: 1 };
const WAIT = { pollInterval: 20, maxPollInterval: 50 };
const closers = useCleanup();

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The mock with a create rate (Retry-After when asked), a client on it, and a folder with one short audio file. */
async function setup(retryAfter: boolean, options: ClientOptions = {}) {
  const mock: MockServer = await startMockServer({ processingMs: 50, createRate: { ...RATE, retryAfter } });
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', ...options });
  const dir = await mkdtemp(join(tmpdir(), 'avatar-create-rate-'));
  const audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
  closers.push(
    () => mock.close(),
    () => client.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  const params = { audio_reference: audio, image_reference: mockFixture('portrait.png').pathname };
  const items = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `item-${i}`, ...params }));
  return { mock, client, dir, params, items };
}

describe('a declared create rate', () => {
  it('sends no create the window refuses, across a batch', async () => {
    const { mock, client, dir, items } = await setup(false, { createRate: RATE });
    expect(client.createRate).toEqual({ source: 'declared', rate: RATE, waiting: 0, nextCreateAt: undefined });
    const summary = await client.videos.generateBatch(items(5), { outputDir: dir, ...WAIT });
    expect(summary.completed).toBe(5);
    expect(mock.throttledCreates).toBe(0);
    expect(mock.creates).toBe(5);
  });

  it('paces concurrent generates on one client, and shows the creates it holds back', async () => {
    const { mock, client, dir, params } = await setup(false, { createRate: RATE });
    const runs = Array.from({ length: 5 }, (_, i) => client.videos.generate(params, { output: join(dir, `${i}.mp4`), ...WAIT }));
    await vi.waitFor(() => expect(mock.creates).toBe(2), { timeout: 5_000 });
    // Two sent; the other three wait at the gate for the window to pass.
    await vi.waitFor(() => expect(client.createRate.waiting).toBeGreaterThan(0), { timeout: 5_000 });
    expect(client.createRate.nextCreateAt).toBeInstanceOf(Date);
    await Promise.all(runs);
    expect(mock.throttledCreates).toBe(0);
    expect(mock.creates).toBe(5);
    expect(client.createRate.waiting).toBe(0);
  });

  it('is read from AVATAR_VIDEO_CREATE_RATE, and a malformed one is refused', async () => {
    vi.stubEnv('AVATAR_VIDEO_CREATE_RATE', '2/1');
    const { mock, client, dir, items } = await setup(false);
    expect(client.createRate).toMatchObject({ source: 'declared', rate: RATE });
    await client.videos.generateBatch(items(4), { outputDir: dir, ...WAIT });
    expect(mock.throttledCreates).toBe(0);
    vi.stubEnv('AVATAR_VIDEO_CREATE_RATE', 'two a minute');
    expect(() => new AvatarVideo({ apiKey: 'sk-test', baseURL: mock.baseURL })).toThrow(InvalidArgumentError);
  });

  it('stops a create waiting at the gate when its signal fires, sending nothing', async () => {
    const { mock, client, dir, params } = await setup(false, { createRate: { limit: 1, windowSeconds: 60 } });
    await client.videos.generate(params, { output: join(dir, 'first.mp4'), ...WAIT });
    const controller = new AbortController();
    const second = client.videos.generate(params, { output: join(dir, 'second.mp4'), signal: controller.signal, ...WAIT });
    await vi.waitFor(() => expect(client.createRate.waiting).toBe(1), { timeout: 5_000 });
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(APIUserAbortError);
    expect(client.createRate.waiting).toBe(0);
    expect(mock.creates).toBe(1);
    expect(mock.throttledCreates).toBe(0);
  });
});

describe('a learned create rate', () => {
  it('without Retry-After: one 429 teaches the limit, probes find the window, later creates wait', async () => {
    const { mock, client, dir, items } = await setup(false);
    expect(client.createRate).toEqual({ source: 'none', rate: undefined, waiting: 0, nextCreateAt: undefined });
    const summary = await client.videos.generateBatch(items(8), { outputDir: dir, ...WAIT });
    expect(summary.completed).toBe(8);
    expect(client.createRate).toMatchObject({ source: 'learned', rate: RATE });
    // The first refusal teaches the limit; the 1 s window is the first probed, and holds.
    expect(mock.throttledCreates).toBe(1);
  });

  it('tells onThrottled the gate’s learned wait when no Retry-After comes', async () => {
    const { client, dir, params } = await setup(false);
    const waits: number[] = [];
    const runs = Array.from({ length: 3 }, (_, i) =>
      client.videos.generate(params, { output: join(dir, `${i}.mp4`), onThrottled: (ms) => void waits.push(ms ?? 0), ...WAIT }),
    );
    await Promise.all(runs);
    expect(waits.length).toBeGreaterThan(0);
    for (const ms of waits) expect(ms).toBeGreaterThan(0);
  });

  it('with Retry-After: honoured, and the window it tells keeps later creates from knocking', async () => {
    const { mock, client, dir, items } = await setup(true);
    const summary = await client.videos.generateBatch(items(8), { outputDir: dir, ...WAIT });
    expect(summary.completed).toBe(8);
    expect(client.createRate).toMatchObject({ source: 'learned', rate: RATE });
    expect(mock.throttledCreates).toBe(1);
  });
});
