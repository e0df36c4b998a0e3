/**
 * `videos.generateBatch` against the loopback mock: the adaptive limit under a service limit it must find,
 * checks before any create, the ledger's resume, abort, and how failures are reported.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APIUserAbortError, AvatarVideo, BatchInputError, type BatchItem } from '../../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const fast = { pollInterval: 40, maxPollInterval: 80 };
const IMAGE = mockFixture('portrait.png');

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
let audio: string;

async function start(options: MockServerOptions = {}) {
  mock = await startMockServer({ processingMs: 250, ...options });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-batch-'));
  audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
});
afterEach(async () => {
  await client?.close();
  await mock?.close();
  // Forgotten, so that a test with its own server (no start()) does not close the previous test's twice.
  [client, mock] = [undefined as never, undefined as never];
  await rm(dir, { recursive: true, force: true });
});

const items = (count: number, prefix = 'item'): BatchItem[] =>
  Array.from({ length: count }, (_, i) => ({ key: `${prefix}-${i}`, audio_reference: audio, image_reference: IMAGE }));

/** Every file is a whole MP4 made by the job the result names (the mock tags each output with its job id). */
async function expectWholeFiles(results: Array<{ path?: string; videoId?: string }>) {
  for (const result of results) {
    const summary = await summarizeMp4(result.path as string);
    expect(summary.durationSeconds).toBeCloseTo(1, 0);
    expect(Object.values(summary.tags).join(' ')).toContain(`job=${result.videoId}`);
  }
}

const completeJobs = () => mock.state.listVideos().filter((video) => video.status === 'COMPLETE');

describe('generateBatch under a service limit', () => {
  it('finds a limit of 6 with 10% rate-limited jobs: one COMPLETE job per key, few 429s, whole files', async () => {
    await start({ concurrencyLimit: 6, rateLimitFailureRate: 0.1, seed: 7, processingMs: 300 });
    const running: number[] = [];
    const summary = await client.videos.generateBatch(items(40), {
      outputDir: join(dir, 'out'),
      // With the default 3, one item in a thousand fails three draws of 10% in a row; this test is about the limit.
      maxAttempts: 6,
      ...fast,
      onRunProgress: (p) => running.push(p.running),
    });
    expect(summary).toMatchObject({ completed: 40, failed: 0, skipped: 0 });
    await expectWholeFiles(summary.results);
    const complete = completeJobs();
    expect(complete).toHaveLength(40);
    expect(new Set(complete.map((v) => v.id))).toEqual(new Set(summary.results.map((r) => r.videoId)));
    // Rate-limited failures really happened and were made again.
    const failedJobs = mock.state.listVideos().filter((v) => v.status === 'FAILED');
    expect(failedJobs.length).toBeGreaterThan(0);
    expect(mock.creates).toBe(40 + failedJobs.length);
    expect(mock.throttledCreates).toBeLessThanOrEqual(mock.creates / 4);
    // It grew beyond its start of 2, to the service's limit.
    expect(Math.max(...running)).toBeGreaterThanOrEqual(6);
  });
});

describe('generateBatch checks every item before creating any job', () => {
  it('reports every bad item at once and creates nothing', async () => {
    await start();
    const bad = join(dir, 'not-audio.wav');
    await writeFile(bad, 'hello, not a wav');
    const input: BatchItem[] = [
      ...items(2),
      { key: 'item-0', audio_reference: audio, image_reference: IMAGE }, // duplicate
      { key: 'ITEM-1', audio_reference: audio, image_reference: IMAGE }, // duplicate ignoring case
      { key: '../escape', audio_reference: audio, image_reference: IMAGE },
      { key: 'bad-audio', audio_reference: bad, image_reference: IMAGE },
      { key: 'missing', audio_reference: join(dir, 'nope.wav'), image_reference: IMAGE },
    ];
    const error = await client.videos.generateBatch(input, { outputDir: join(dir, 'out'), ...fast }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    const problems = (error as BatchInputError).problems;
    expect(problems.map((p) => [p.index, p.code])).toEqual([
      [2, 'duplicate_key'],
      [3, 'duplicate_key'],
      [4, 'invalid_key'],
      [5, 'unsupported_format'],
      [6, 'unreadable_input'],
    ]);
    expect((error as Error).message).toContain('bad-audio');
    expect(mock.creates).toBe(0);
    expect(mock.requests).toHaveLength(0);
    // The output folder this run made for the refused items is gone again.
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('refused items never remove a folder that was there before, nor anything in it', async () => {
    await start();
    const bad = [{ key: 'x', audio_reference: join(dir, 'nope.wav'), image_reference: IMAGE }];
    await expect(client.videos.generateBatch(bad, { outputDir: join(dir, 'made/deeper') })).rejects.toThrow(BatchInputError);
    expect(existsSync(join(dir, 'made'))).toBe(false);
    await expect(client.videos.generateBatch(bad, { outputDir: dir })).rejects.toThrow(BatchInputError);
    expect(await readdir(dir)).toEqual(['speech.wav']);
  });

  it('refuses a one-shot stream, which could not be uploaded again', async () => {
    await start();
    const { Readable } = await import('node:stream');
    const error = await client.videos
      .generateBatch([{ key: 'a', audio_reference: Readable.from([wav(1)]), image_reference: IMAGE }], { outputDir: dir })
      .catch((e: unknown) => e);
    expect((error as BatchInputError).problems[0]).toMatchObject({ key: 'a', code: 'one_shot_input', field: 'audio_reference' });
  });
});

describe('generateBatch resumes from its ledger', () => {
  it('skips saved items on a second run, creating nothing', async () => {
    await start();
    const out = join(dir, 'out');
    const first = await client.videos.generateBatch(items(3), { outputDir: out, ...fast });
    expect(first.completed).toBe(3);
    // A partial download left by a killed run is removed, never taken for a video, even for an item now skipped.
    await writeFile(join(out, '.item-3.mp4.0123456789ab.part'), 'partial');
    await writeFile(join(out, '.item-0.mp4.0123456789ab.part'), 'partial');
    const second = await client.videos.generateBatch(items(4), { outputDir: out, ...fast });
    expect(second).toMatchObject({ completed: 1, skipped: 3, failed: 0 });
    expect(second.results.slice(0, 3).map((r) => r.videoId)).toEqual(first.results.map((r) => r.videoId));
    expect(mock.creates).toBe(4);
    expect(existsSync(join(out, '.item-3.mp4.0123456789ab.part'))).toBe(false);
    expect(existsSync(join(out, '.item-0.mp4.0123456789ab.part'))).toBe(false);
  });

  it('names the key whose inputs changed since the ledger recorded it', async () => {
    await start();
    const out = join(dir, 'out');
    await client.videos.generateBatch(items(2), { outputDir: out, ...fast });
    const other = join(dir, 'other.wav');
    await writeFile(other, wav(2));
    const changed = [items(2)[0] as BatchItem, { key: 'item-1', audio_reference: other, image_reference: IMAGE }];
    const error = await client.videos.generateBatch(changed, { outputDir: out, ...fast }).catch((e: unknown) => e);
    expect((error as BatchInputError).problems).toEqual([expect.objectContaining({ key: 'item-1', code: 'inputs_changed' })]);
    expect((error as Error).message).toContain('item-1');
    expect(mock.creates).toBe(2);
  });

  it('after an abort: no partial file, and the rerun waits on the jobs already made instead of paying again', async () => {
    await start({ processingMs: 400 });
    const out = join(dir, 'out');
    const controller = new AbortController();
    const error = await client.videos
      .generateBatch(items(8), {
        outputDir: out,
        concurrency: 4,
        ...fast,
        signal: controller.signal,
        onItem: () => controller.abort(),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    const createdBefore = mock.creates;
    const files = await readdir(out);
    // Only whole videos and the ledger: no temporary or partial file.
    expect(files.filter((f) => !f.endsWith('.mp4') && f !== '.avatar-video-batch.jsonl')).toEqual([]);
    const rerun = await client.videos.generateBatch(items(8), { outputDir: out, concurrency: 4, ...fast });
    expect(rerun.completed + rerun.skipped).toBe(8);
    expect(rerun.skipped).toBeGreaterThanOrEqual(1);
    // Every job the first run made was used: one COMPLETE job per key, none paid twice.
    expect(completeJobs()).toHaveLength(8);
    expect(mock.creates).toBe(8);
    expect(createdBefore).toBeLessThan(8);
    await expectWholeFiles(rerun.results);
  });
});

describe('generateBatch failures', () => {
  it("reports a connection failure by its kind: https at the mock's plain-http port fails each item as tls_protocol", async () => {
    await start();
    const https = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL.replace('http:', 'https:'), logLevel: 'off' });
    try {
      const summary = await https.videos.generateBatch(items(2), { outputDir: join(dir, 'out'), concurrency: 1, ...fast });
      expect(summary).toMatchObject({ completed: 0, failed: 2 });
      for (const result of summary.results) expect(result).toMatchObject({ status: 'failed', error: { code: 'tls_protocol' } });
      expect(mock.creates).toBe(0);
    } finally {
      await https.close();
    }
  });

  it('reports a failed job without retrying it, and carries on with the rest', async () => {
    await start();
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face in the image.' } });
    const summary = await client.videos.generateBatch(items(3), { outputDir: join(dir, 'out'), concurrency: 1, ...fast });
    expect(summary).toMatchObject({ completed: 2, failed: 1 });
    expect(summary.results[0]).toMatchObject({ key: 'item-0', status: 'failed', error: { code: 'face_not_found' } });
    expect(summary.results[0]?.videoId).toMatch(/^vid_/);
    expect(existsSync(join(dir, 'out', 'item-0.mp4'))).toBe(false);
    expect(mock.creates).toBe(3);
  });

  it('creates again a job that FAILED for a rate limit, up to maxAttempts', async () => {
    await start();
    const rateLimited = { status: 'FAILED' as const, error: { code: 'rate_limit_exceeded', message: 'Too many jobs.' } };
    for (let i = 0; i < 3; i++) mock.enqueueOutcome(rateLimited); // item-0: three jobs, all rate limited
    mock.enqueueOutcome(rateLimited); // item-1: one rate-limited job, then COMPLETE
    const seen: string[] = [];
    const summary = await client.videos.generateBatch(items(2), {
      outputDir: join(dir, 'out'),
      concurrency: 1,
      ...fast,
      onItem: (r) => seen.push(`${r.key}:${r.status}`),
    });
    expect(seen).toEqual(['item-0:failed', 'item-1:complete']);
    expect(summary.results[0]?.error).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(summary.results[0]?.error?.message).toContain('3 jobs tried');
    expect(mock.creates).toBe(5);
  });

  it('creates again a job that FAILED for a fault of the service, as generateLong does, but not one that failed on its inputs', async () => {
    await start();
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'internal_error', message: 'The renderer crashed.' } }); // item-0
    mock.enqueueOutcome({ status: 'COMPLETE' }); // item-0, made again
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face in the image.' } }); // item-1
    const summary = await client.videos.generateBatch(items(2), { outputDir: join(dir, 'out'), concurrency: 1, ...fast });
    expect(summary.results.map((r) => r.status)).toEqual(['complete', 'failed']);
    expect(summary.results[1]?.error).toMatchObject({ code: 'face_not_found' });
    expect(mock.creates).toBe(3);
  });

  it('with a fixed concurrency, never runs more jobs than asked', async () => {
    await start();
    let peak = 0;
    const summary = await client.videos.generateBatch(items(9), {
      outputDir: join(dir, 'out'),
      concurrency: 3,
      ...fast,
      onRunProgress: (p) => {
        peak = Math.max(peak, p.running);
      },
    });
    expect(summary.completed).toBe(9);
    expect(peak).toBe(3);
  });

  it('with a fixed concurrency above the service limit, refused creates wait out the Retry-After and are made again', async () => {
    // Jobs long enough to be still running when the third create goes out, however slowly the creates before it
    // were answered: with 200 ms jobs, a loaded machine let both end first, and no create was refused.
    await start({ concurrencyLimit: 2, processingMs: 1_500 });
    const summary = await client.videos.generateBatch(items(6), { outputDir: join(dir, 'out'), concurrency: 4, ...fast });
    expect(summary).toMatchObject({ completed: 6, failed: 0 });
    expect(mock.throttledCreates).toBeGreaterThan(0);
    expect(mock.creates).toBe(6);
    expect(completeJobs()).toHaveLength(6);
  });

  it('reports done, failed, running and an ETA as items finish', async () => {
    await start();
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face.' } });
    const progress: Array<{ done: number; failed: number; running: number; total: number; etaSeconds: number | undefined }> = [];
    await client.videos.generateBatch(items(4), {
      outputDir: join(dir, 'out'),
      concurrency: 1,
      ...fast,
      onRunProgress: (p) => progress.push(p),
    });
    expect(progress[0]).toEqual({ done: 0, failed: 0, running: 0, total: 4, etaSeconds: undefined });
    expect(progress.at(-1)).toMatchObject({ done: 3, failed: 1, running: 0, total: 4, etaSeconds: 0 });
    expect(progress.some((p) => p.etaSeconds !== undefined && p.etaSeconds >= 0 && p.done + p.failed < 4)).toBe(true);
  });

  it('rejects bad options before reading any item', async () => {
    await start();
    const options = { outputDir: join(dir, 'out') };
    await expect(client.videos.generateBatch(items(1), { ...options, concurrency: 0 })).rejects.toThrow(/concurrency/);
    await expect(client.videos.generateBatch(items(1), { ...options, maxConcurrency: 1.5 })).rejects.toThrow(/maxConcurrency/);
  });

  it('reads items from an async generator', async () => {
    await start();
    async function* source() {
      for (const item of items(3)) yield item;
    }
    const summary = await client.videos.generateBatch(source(), { outputDir: join(dir, 'out'), ...fast });
    expect(summary.results.map((r) => r.key)).toEqual(['item-0', 'item-1', 'item-2']);
  });
});

it('the ledger records each state change as one JSON line', async () => {
  await start();
  const out = join(dir, 'out');
  await client.videos.generateBatch(items(1), { outputDir: out, ...fast });
  const lines = (await readFile(join(out, '.avatar-video-batch.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.map((l) => l.state)).toEqual(['creating', 'created', 'saved']);
  expect(lines[1].jobId).toBe(lines[2].jobId);
  expect(lines[0].hash).toMatch(/^[0-9a-f]{64}$/);
});

it('plain generate calls on one client share its limit: six at once against a service limit of 2 send few creates it refuses', async () => {
  await start({ concurrencyLimit: 2, processingMs: 200 });
  const made = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      client.videos.generate({ audio_reference: audio, image_reference: IMAGE }, { output: join(dir, `plain-${i}.mp4`), ...fast }),
    ),
  );
  expect(made.map((m) => m.video.status)).toEqual(Array(6).fill('COMPLETE'));
  expect(mock.creates).toBe(6);
  // Without the shared limit, four of the six first creates would be refused at once, and retried blindly.
  expect(mock.throttledCreates).toBeLessThanOrEqual(2);
});

it('generateBatch, generateLong and createAndWait on one client take their places from the one limit the client owns', async () => {
  // The service runs one job at a time, and the client allows one: had any of the three calls a limit of its own (or
  // none), its jobs would run beside the others' and the service would refuse their creates.
  await start({ processingMs: 100, concurrencyLimit: 1 });
  const one = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', jobConcurrency: 1 });
  const long = join(dir, 'long.wav');
  await writeFile(long, speechLikeWav(70));
  const [batch, longVideo] = await Promise.all([
    // Two items and two segments in hand at once: the client's limit, not these widths, holds their jobs to one.
    one.videos.generateBatch(items(2), { outputDir: join(dir, 'out'), concurrency: 2, ...fast }),
    one.videos.generateLong({ audio_reference: long, image_reference: IMAGE }, { output: join(dir, 'long.mp4'), concurrency: 2, ...fast }),
    one.videos.createAndWait({ audio_reference: audio, image_reference: IMAGE }, fast),
  ]).finally(() => one.close());
  expect(batch.completed).toBe(2);
  expect(longVideo.segments.length).toBeGreaterThanOrEqual(2);
  // Two batch items, the segments, one plain job: each created once, none refused.
  expect(mock.creates).toBe(2 + longVideo.segments.length + 1);
  expect(mock.throttledCreates).toBe(0);
});

it('a second client has a limit of its own', async () => {
  const HELD_MS = 60_000;
  // The first job runs until the test moves the mock's clock on; the second client's job meanwhile ends at once.
  await start({ processingMs: (index) => (index === 0 ? HELD_MS : 100) });
  const clients = [1, 2].map(() => new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', jobConcurrency: 1 }));
  const [first, second] = clients as [AvatarVideo, AvatarVideo];
  try {
    const held = first.videos.createAndWait({ audio_reference: audio, image_reference: IMAGE }, fast);
    await vi.waitFor(() => expect(mock.creates).toBe(1));
    expect([first.jobConcurrency.running, second.jobConcurrency.running]).toEqual([1, 0]);
    // Were the first client's one place the second's too, this would wait for the held job (and time out).
    const other = await second.videos.createAndWait(
      { audio_reference: audio, image_reference: IMAGE },
      { ...fast, signal: AbortSignal.timeout(10_000) },
    );
    expect(other.status).toBe('COMPLETE');
    expect(first.jobConcurrency.running).toBe(1);
    mock.advance(HELD_MS);
    expect((await held).status).toBe('COMPLETE');
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});

it('an abort while a create is in flight lets its answer reach the ledger (the service may have made and billed the job)', async () => {
  const controller = new AbortController();
  const api = await rawServer(async (req, res) => {
    for await (const _ of req) {
      /* the whole upload */
    }
    if (req.method !== 'POST') return json(res, 200, video('vid_inflight', { status: 'PROCESSING' }));
    controller.abort(); // the service has the request and makes the job; the caller gives up meanwhile
    await new Promise((resolve) => setTimeout(resolve, 50));
    json(res, 200, video('vid_inflight', { status: 'PROCESSING' }));
  });
  client = new AvatarVideo({ apiKey: 'k', baseURL: api.url, logLevel: 'off', maxRetries: 0 });
  try {
    const out = join(dir, 'inflight');
    await expect(client.videos.generateBatch(items(1), { outputDir: out, signal: controller.signal, ...fast })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    const lines = (await readFile(join(out, '.avatar-video-batch.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.state, l.jobId])).toEqual([
      ['creating', undefined],
      ['created', 'vid_inflight'],
    ]);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  } finally {
    await api.close();
  }
});
