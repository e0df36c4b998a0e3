/**
 * Statuses the spec does not list, over real sockets: QUEUED (which the service's docs show before PROCESSING, served
 * by the mock's `queuedMs`) and a status no one knows yet are waits to go on with, reported and never settled; the
 * field share_link_url, also outside the spec, reaches the caller's object.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AvatarVideo, type Video, WaitTimeoutError } from '../../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const FAST = { pollInterval: 20, maxPollInterval: 60 };
const IMAGE = mockFixture('portrait.png');
const AUDIO = mockFixture('tone-2s.mp3');
const PARAMS = { audio_reference: AUDIO, image_reference: IMAGE };

const closers = useCleanup();

/** A mock whose jobs wait QUEUED for their first 300 ms, then run PROCESSING for 300 ms more. */
async function queuedMock(options: MockServerOptions = {}): Promise<{ server: MockServer; client: AvatarVideo }> {
  const server = await startMockServer({ processingMs: 600, queuedMs: 300, ...options });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
  closers.push(() => client.close(), server.close);
  return { server, client };
}

/** An `onProgress` that keeps each report's status, progress and estimate. */
function reports() {
  const seen: Array<{ status: string; progress: number | null | undefined; etaSeconds: number | undefined }> = [];
  const onProgress = (video: Video, { etaSeconds }: AvatarVideo.WaitProgress) =>
    seen.push({ status: video.status, progress: video.progress, etaSeconds });
  /** The statuses in the order first seen. */
  const statuses = () => seen.map((report) => report.status).filter((status, i, all) => all[i - 1] !== status);
  return { seen, onProgress, statuses };
}

describe('QUEUED, then PROCESSING, then COMPLETE', () => {
  it('createAndWait waits through QUEUED; onProgress sees it, with no estimate until the job runs', async () => {
    const { server, client } = await queuedMock();
    const progress = reports();
    const made = await client.videos.createAndWait(PARAMS, { ...FAST, onProgress: progress.onProgress });
    expect(made.status).toBe('COMPLETE');
    expect(progress.statuses()).toEqual(['QUEUED', 'PROCESSING', 'COMPLETE']);
    const queued = progress.seen.filter((report) => report.status === 'QUEUED');
    expect(queued).toEqual([{ status: 'QUEUED', progress: null, etaSeconds: undefined }]);
    expect(server.creates).toBe(1);
  });

  it('generate saves the MP4 of a job that was QUEUED first, and the video carries share_link_url', async () => {
    const { client } = await queuedMock();
    const dir = await mkdtemp(join(tmpdir(), 'avatar-queued-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const progress = reports();
    const made = await client.videos.generate(PARAMS, { ...FAST, output: join(dir, 'queued.mp4'), onProgress: progress.onProgress });
    expect(progress.statuses()).toEqual(['QUEUED', 'PROCESSING', 'COMPLETE']);
    expect((await readFile(made.path)).subarray(4, 8).toString('latin1')).toBe('ftyp');
    // Typed: read without a cast.
    const link: string | null | undefined = made.video.share_link_url;
    expect(link).toBe(`https://share.mock.invalid/videos/${made.video.id}`);
  });

  it('waitForCompletion of a job just created is not over while it is QUEUED', async () => {
    const { client } = await queuedMock();
    const created = await client.videos.create(PARAMS);
    expect(created.status).toBe('QUEUED');
    const progress = reports();
    const done = await client.videos.waitForCompletion(created, { ...FAST, onProgress: progress.onProgress });
    expect(done).toMatchObject({ id: created.id, status: 'COMPLETE', progress: 100 });
    expect(progress.statuses()[0]).toBe('QUEUED');
  });

  it('videos.poll says a QUEUED job is not done and when to look again', async () => {
    const { client } = await queuedMock({ queuedMs: 60_000, processingMs: 120_000 });
    const created = await client.videos.create(PARAMS);
    const step = await client.videos.poll(created.id);
    expect(step).toMatchObject({ done: false, video: { status: 'QUEUED' }, nextPollAfterMs: expect.any(Number) });
    expect((await client.videos.poll(created.id, step.state)).done).toBe(false);
  });

  it('a batch goes through QUEUED jobs to its files', async () => {
    const { client } = await queuedMock({ processingMs: 400, queuedMs: 200 });
    const dir = await mkdtemp(join(tmpdir(), 'avatar-queued-batch-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const items = ['a', 'b', 'c'].map((key) => ({ key, ...PARAMS }));
    const summary = await client.videos.generateBatch(items, { ...FAST, outputDir: dir });
    expect(summary.results.map((result) => result.status)).toEqual(['complete', 'complete', 'complete']);
  });
});

describe('a status this SDK does not know', () => {
  it('is waited through to COMPLETE, reported as it is, and the raw share_link_url reaches the caller', async () => {
    const statuses = ['SCHEDULED', 'SCHEDULED', 'SCHEDULED', 'PROCESSING'];
    const api = await rawServer((_req, res, n) => {
      const status = statuses[n];
      const body = status
        ? video('vid_1', { status, progress: status === 'PROCESSING' ? 50 : null })
        : video('vid_1', { status: 'COMPLETE', progress: 100, share_link_url: 'https://share.example/vid_1' });
      json(res, 200, body);
    });
    const client = new AvatarVideo({ apiKey: 'sk-status-test', baseURL: api.url, logLevel: 'off' });
    closers.push(() => client.close(), api.close);
    const progress = reports();
    const done = await client.videos.waitForCompletion('vid_1', { ...FAST, onProgress: progress.onProgress });
    expect(done).toMatchObject({ status: 'COMPLETE', share_link_url: 'https://share.example/vid_1' });
    expect(progress.statuses()).toEqual(['SCHEDULED', 'PROCESSING', 'COMPLETE']);
    expect(progress.seen[0]).toEqual({ status: 'SCHEDULED', progress: null, etaSeconds: undefined });
    expect(api.requests).toHaveLength(5);
  });

  it('never settles a wait: waitTimeout ends it with WaitTimeoutError and the last state seen, the job left running', async () => {
    const { server, client } = await queuedMock({ processingMs: 60_000, queuedMs: 0 });
    const created = await client.videos.create(PARAMS);
    server.setVideo(created.id, { status: 'SCHEDULED', progress: null });
    const error = await client.videos.waitForCompletion(created.id, { ...FAST, waitTimeout: 400 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).video).toMatchObject({ id: created.id, status: 'SCHEDULED' });
    expect(server.requests.filter((r) => r.path === `/v1/videos/${created.id}`).length).toBeGreaterThan(1);
  });
});
