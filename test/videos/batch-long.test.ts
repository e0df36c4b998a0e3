/**
 * `videos.generateBatch` with an item whose audio is longer than one job allows, against the loopback mock: it is
 * made as generateLong makes it (split, one job per segment, joined), its segment jobs take their places under the
 * client's one limit, a SIGKILLed run resumes them from the long item's manifest, and an output folder that cannot
 * hold the videos is refused before any request.
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AvatarVideo, BatchInputError, type BatchItem, OutputPathError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { spawnBatchChild } from '../helpers/batch-child-process.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';
import { summarizeMp4, topLevelBoxes } from '../helpers/mp4.js';

const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const fast = { pollInterval: 40, maxPollInterval: 80 };

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
let short: string;
let long: string;

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 300 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'avatar-batch-long-'));
  short = join(dir, 'short.wav');
  await writeFile(short, wav(1));
  long = join(dir, 'long.wav');
  await writeFile(long, speechLikeWav(90));
});
afterEach(async () => {
  await client.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

const item = (key: string, audio: string): BatchItem => ({ key, audio_reference: audio, image_reference: IMAGE });

/** Ids of the mock's jobs made from segment audio (the short items' audio lasts 1 s), oldest first. */
const segmentJobs = () =>
  mock.state
    .listVideos()
    .reverse()
    .map((video) => video.id)
    .filter((id) => (mock.state.audioSeconds(id) ?? 0) > 1.5);

it('makes a 90 s item in segments beside short ones: three whole files, its segment jobs in the summary, one limit', async () => {
  // The service runs one job at a time, and the client allows one: had the long item's segments a limit of their own
  // (or none), they would run beside the short items' jobs and the service would refuse their creates.
  await Promise.all([client.close(), mock.close()]);
  mock = await startMockServer({ processingMs: 150, concurrencyLimit: 1 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', jobConcurrency: 1 });
  const out = join(dir, 'out');
  const options = { outputDir: out, concurrency: 3, ...fast };
  const summary = await client.videos.generateBatch([item('a', short), item('talk', long), item('b', short)], options);
  // Two short jobs and two segments, each placed by the client's one limit: none refused.
  expect(mock.throttledCreates).toBe(0);
  expect(summary).toMatchObject({ completed: 3, failed: 0, skipped: 0 });
  const talk = summary.results[1];
  expect(talk).toMatchObject({ key: 'talk', status: 'complete', path: join(out, 'talk.mp4') });
  expect(talk?.videoId).toBeUndefined();
  expect(talk?.segmentVideoIds).toEqual(segmentJobs());
  expect(talk?.segmentVideoIds).toHaveLength(2);
  expect(mock.creates).toBe(4);

  const joined = await summarizeMp4(join(out, 'talk.mp4'));
  expect(joined.durationSeconds).toBeCloseTo(90, 0);
  expect(joined.videoSeconds).toBeCloseTo(90, 0);
  expect(joined.audioSeconds).toBeCloseTo(90, 0);
  expect(JSON.parse(joined.tags['avatar-video.segments'] ?? '[]')).toEqual(talk?.segmentVideoIds);
  const boxes = topLevelBoxes(await readFile(join(out, 'talk.mp4')));
  expect(boxes[0]).toBe('ftyp');
  expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
  for (const result of [summary.results[0], summary.results[2]]) {
    const mp4 = await summarizeMp4(result?.path as string);
    expect(mp4.durationSeconds).toBeCloseTo(1, 0);
    expect(Object.values(mp4.tags).join(' ')).toContain(`job=${result?.videoId}`);
  }
  // The work folder is gone once the item is saved; the ledger remains.
  expect((await readdir(out)).sort()).toEqual(['.avatar-video-batch.jsonl', 'a.mp4', 'b.mp4', 'talk.mp4']);

  const again = await client.videos.generateBatch([item('a', short), item('talk', long), item('b', short)], options);
  expect(again).toMatchObject({ completed: 0, skipped: 3 });
  expect(again.results[1]?.segmentVideoIds).toEqual(talk?.segmentVideoIds);
  expect(mock.creates).toBe(4);
});

it('cuts a long item as generateLong does, just below multiples of the billing step: 130 s billed 132 s', async () => {
  const talk = join(dir, 'talk-130.wav');
  await writeFile(talk, speechLikeWav(130));
  const summary = await client.videos.generateBatch([item('talk', talk)], { outputDir: join(dir, 'out'), ...fast });
  expect(summary).toMatchObject({ completed: 1, failed: 0 });
  const lengths = segmentJobs().map((id) => mock.state.audioSeconds(id) ?? 0);
  expect(lengths).toHaveLength(3);
  // Cut in the pauses at the limit (about 59.85 s, then 60 s), the second segment alone would be billed 66 s.
  expect(lengths.reduce((sum, length) => sum + Math.ceil((length + 0.1) / 6 - 1e-9) * 6, 0)).toBe(132);
  expect(lengths.reduce((sum, length) => sum + length, 0)).toBeCloseTo(130, 6);
});

it('accepts long audio up front but keeps every other check: audio too short is still refused, and nothing is created', async () => {
  const tiny = join(dir, 'tiny.wav');
  await writeFile(tiny, wav(0.5));
  const error = await client.videos
    .generateBatch([item('talk', long), item('tiny', tiny)], { outputDir: join(dir, 'out'), ...fast })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BatchInputError);
  expect((error as BatchInputError).problems).toEqual([
    expect.objectContaining({ key: 'tiny', field: 'audio_reference', code: 'duration_out_of_range' }),
  ]);
  expect(mock.requests).toHaveLength(0);
});

it('a long item’s segments count among the batch’s running jobs, held to the client’s one limit with the rest', async () => {
  const two = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', jobConcurrency: 2 });
  let peak = 0;
  const summary = await two.videos
    .generateBatch([item('talk', long), item('a', short), item('b', short), item('c', short)], {
      outputDir: join(dir, 'out'),
      ...fast,
      onRunProgress: (p) => {
        peak = Math.max(peak, p.running);
      },
    })
    .finally(() => two.close());
  expect(summary).toMatchObject({ completed: 4, failed: 0 });
  expect(peak).toBe(2);
});

it('makes a long item’s segments side by side, each placed by the client’s limit like any other job', async () => {
  // The batch counts the row once while it runs (BatchProgress.running); the jobs side by side are the mock's.
  let peak = 0;
  let rows = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, mock.state.listVideos().filter((video) => video.status === 'PROCESSING').length);
  }, 10);
  const summary = await client.videos
    .generateBatch([item('talk', long)], {
      outputDir: join(dir, 'out'),
      ...fast,
      onRunProgress: (p) => {
        rows = Math.max(rows, p.running);
      },
    })
    .finally(() => clearInterval(sample));
  expect(rows).toBe(1);
  expect(summary).toMatchObject({ completed: 1, failed: 0 });
  expect(summary.results[0]?.segmentVideoIds).toHaveLength(2);
  expect(peak).toBe(2);
});

it('a long item whose segment keeps failing is reported with the segment’s job; the others go on, its segments stay for a rerun', async () => {
  mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face in the image.' } });
  const out = join(dir, 'out');
  const summary = await client.videos.generateBatch([item('talk', long), item('a', short)], {
    outputDir: out,
    concurrency: 1,
    maxAttempts: 1,
    ...fast,
  });
  expect(summary).toMatchObject({ completed: 1, failed: 1 });
  const [failedJob] = segmentJobs();
  expect(summary.results[0]).toMatchObject({ key: 'talk', status: 'failed', videoId: failedJob, error: { code: 'face_not_found' } });
  expect(summary.results[0]?.error?.message).toContain(join(out, '.work', 'talk'));
  expect(existsSync(join(out, '.work', 'talk', 'manifest.json'))).toBe(true);
  expect(existsSync(join(out, 'talk.mp4'))).toBe(false);
});

it('survives a SIGKILL after the long item’s first segment was created: the rerun creates no segment twice', async () => {
  const out = join(dir, 'out');
  // One job at a time, so that the kill finds exactly one segment job made (side by side, a second create could be
  // under way, its answer lost with the process: the one job a crash may cost).
  const child = spawnBatchChild([mock.baseURL, mock.apiKey, out, short, IMAGE, '2', long, '1']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  // A segment job is polled only once the child's manifest names it: kill the child at its first poll.
  const getVideo = mock.state.getVideo.bind(mock.state);
  const spy = vi.spyOn(mock.state, 'getVideo').mockImplementation((id) => {
    if ((mock.state.audioSeconds(id) ?? 0) > 1.5) child.kill('SIGKILL');
    return getVideo(id);
  });
  let killed: [number | null, string | null];
  try {
    killed = (await exited) as [number | null, string | null];
  } finally {
    spy.mockRestore();
  }
  expect({ signal: killed[1], stderr }).toMatchObject({ signal: 'SIGKILL' });
  const [first, ...others] = segmentJobs();
  expect(others).toEqual([]);
  expect(existsSync(join(out, '.work', 'long', 'manifest.json'))).toBe(true);

  const items = [item('long', long), item('item-0', short), item('item-1', short)];
  const summary = await client.videos.generateBatch(items, { outputDir: out, ...fast });
  expect(summary).toMatchObject({ failed: 0 });
  expect(summary.completed + summary.skipped).toBe(3);
  const segmentIds = summary.results[0]?.segmentVideoIds;
  expect(segmentIds).toHaveLength(2);
  // The segment the killed run made was waited on, not made again: two segments, two segment creates in all.
  expect(segmentIds?.[0]).toBe(first);
  expect(segmentJobs()).toEqual(segmentIds);
  expect(await summarizeMp4(join(out, 'long.mp4'))).toMatchObject({ durationSeconds: expect.closeTo(90, 0) });
  expect(existsSync(join(out, '.work'))).toBe(false);
});

it('refuses an outputDir that is a file before any request, with a typed error', async () => {
  const file = join(dir, 'taken');
  await writeFile(file, 'not a folder');
  const error = await client.videos
    .generateBatch([item('a', short), item('talk', long)], { outputDir: file, ...fast })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OutputPathError);
  expect(error).toMatchObject({ code: 'not_a_folder', path: file });
  expect((error as Error).message).toContain(file);
  expect(mock.creates).toBe(0);
  expect(mock.requests).toHaveLength(0);
  expect(await readFile(file, 'utf8')).toBe('not a folder');
});
