/**
 * `videos.generateBatch` against the loopback mock: the adaptive limit under a service limit it must find,
 * checks before any create, the ledger's resume, abort, and how failures are reported.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIUserAbortError, AvatarVideo, BatchInputError, type BatchItem } from '../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../src/testing/index.js';
import { mockFixture, wav } from './helpers/media.js';
import { summarizeMp4 } from './helpers/mp4.js';

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
      maxAttempts: 6,
      ...fast,
      onProgress: (p) => running.push(p.running),
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
