import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIUserAbortError, AvatarVideo, SegmentFailedError, toFile } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { mockFixture, speechLikeWav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
beforeEach(async () => {
  mock = await startMockServer({ processingMs: 150 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'avatar-long-'));
});
afterEach(async () => {
  await client.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

const fast = { pollInterval: 30, maxPollInterval: 60 };

/** The MP4's duration as mediabunny reads it, apart from the SDK. */
const durationOf = async (path: string) => (await summarizeMp4(path)).durationSeconds;

async function writeAudio(seconds: number): Promise<string> {
  const path = join(dir, `talk-${seconds}.wav`);
  await writeFile(path, speechLikeWav(seconds));
  return path;
}

describe('generateLong against the mock', () => {
  it('turns 5 minutes of audio into one 5-minute MP4, reporting progress', async () => {
    const output = join(dir, 'talk.mp4');
    const fractions: number[] = [];
    const result = await client.videos.generateLong(
      { audio_reference: await writeAudio(300), image_reference: mockFixture('portrait.png') },
      { output, ...fast, onRunProgress: (p) => fractions.push(p.fraction) },
    );
    expect(result.segments.length).toBeGreaterThanOrEqual(5);
    expect(mock.creates).toBe(result.segments.length);
    expect(result.path).toBe(output);
    expect(await durationOf(output)).toBeCloseTo(300, 0);
    expect(result.durationSeconds).toBeCloseTo(300, 0);
    expect(fractions.at(-1)).toBe(1);
    expect(fractions.every((f, i) => i === 0 || f >= fractions[i - 1]! - 1e-9)).toBe(true);
    expect(existsSync(join(dir, '.talk.mp4.parts'))).toBe(false);
  });

  it.each([
    [6, undefined],
    [10, 10],
  ])('cuts segments just below multiples of the client billing step (%i s), and joins them exactly', async (step, option) => {
    const stepped = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', billingIncrementSeconds: option });
    try {
      const output = join(dir, `stepped-${step}.mp4`);
      const workDir = join(dir, `stepped-${step}.parts`);
      const result = await stepped.videos.generateLong(
        { audio_reference: await writeAudio(95), image_reference: mockFixture('portrait.png') },
        { output, workDir, keepWorkDir: true, maxSegmentSeconds: 20, ...fast },
      );
      // Each segment's video, as the service bills it: all but the last at least 0.1 s under a multiple of the step
      // (further only into a pause, as far as the whole's slack allows: 0.4 s in all at 6 s, 4.5 s at 10 s).
      const videos = (await readdir(join(workDir, 'video'))).sort();
      const lengths = await Promise.all(videos.map((file) => durationOf(join(workDir, 'video', file))));
      expect(lengths).toHaveLength(result.segments.length);
      for (const length of lengths.slice(0, -1)) {
        const unbilled = Math.ceil(length / step) * step - length;
        expect(unbilled).toBeGreaterThan(0.05);
      }
      const billed = lengths.reduce((sum, length) => sum + Math.ceil(length / step) * step, 0);
      expect(billed).toBe(Math.ceil(95 / step) * step);
      // The join is exact: the joined file lasts what its segments last together, 95 s.
      const together = lengths.reduce((sum, length) => sum + length, 0);
      expect(await durationOf(output)).toBeCloseTo(together, 2);
      expect(result.durationSeconds).toBeCloseTo(95, 2);
    } finally {
      await stepped.close();
    }
  });

  it('treats audio of 60 s or less as one ordinary generate', async () => {
    const result = await client.videos.generateLong(
      { audio_reference: await writeAudio(20), image_reference: mockFixture('portrait.png') },
      { output: join(dir, 'short.mp4'), ...fast },
    );
    expect(result.segments).toHaveLength(1);
    expect(mock.creates).toBe(1);
  });

  it('creates a FAILED segment again, once', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'internal_error', message: 'render crashed' } });
    const result = await client.videos.generateLong(
      { audio_reference: await writeAudio(100), image_reference: mockFixture('portrait.png') },
      { output: join(dir, 'retry.mp4'), ...fast, concurrency: 1 },
    );
    expect(result.segments).toHaveLength(2);
    expect(mock.creates).toBe(3);
  });

  it('fails naming the segment and its job after the attempts run out, keeping finished segments', async () => {
    // maxJobAttempts is 3 by default, as on every method. One place of the client's one limit, two segments in hand:
    // while segment 0 waits out its backoff, segment 1 takes the place and its one job (the second made) completes;
    // segment 0's three jobs all fail.
    const rateLimited = { status: 'FAILED' as const, error: { code: 'rate_limit_exceeded', message: 'slow down' } };
    for (const outcome of [rateLimited, { status: 'COMPLETE' as const }, rateLimited, rateLimited]) mock.enqueueOutcome(outcome);
    const workDir = join(dir, 'work');
    const single = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', jobConcurrency: 1 });
    const error = await single.videos
      .generateLong(
        { audio_reference: await writeAudio(100), image_reference: mockFixture('portrait.png') },
        { output: join(dir, 'fail.mp4'), ...fast, concurrency: 2, workDir },
      )
      .finally(() => single.close())
      .catch((e) => e);
    expect(error).toBeInstanceOf(SegmentFailedError);
    expect(error.segmentIndex).toBe(0);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.message).toContain(error.jobId);
    expect(existsSync(join(dir, 'fail.mp4'))).toBe(false);
    const manifest = JSON.parse(await readFile(join(workDir, 'manifest.json'), 'utf8'));
    expect(manifest.segments[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(manifest.segments[1]).toMatchObject({ status: 'downloaded', attempts: 0 });
  });

  it('does not make again a segment whose job failed on its inputs, and stops the segments still waiting for a place', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face in the image.' } });
    const error = await client.videos
      .generateLong(
        { audio_reference: await writeAudio(300), image_reference: mockFixture('portrait.png') },
        { output: join(dir, 'face.mp4'), ...fast, concurrency: 1, workDir: join(dir, 'work') },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(SegmentFailedError);
    expect(error).toMatchObject({ segmentIndex: 0, code: 'face_not_found' });
    expect(error.message).toContain('failed 1 time(s)');
    // Five segments: the place the failed job gave back may go to one more, but the rest never create a job.
    expect(mock.creates).toBeLessThanOrEqual(2);
    expect(client.jobConcurrency.running).toBe(0);
  });

  it('refuses a concurrency that is not auto nor a whole number of at least 1, before any request', async () => {
    const error = await client.videos
      .generateLong(
        { audio_reference: await writeAudio(100), image_reference: mockFixture('portrait.png') },
        { output: join(dir, 'x.mp4'), concurrency: 0 },
      )
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'InvalidArgumentError', argument: 'concurrency' });
    expect(mock.requests).toHaveLength(0);
  });

  it('resumes after an abort without creating any job twice', async () => {
    const workDir = join(dir, 'work');
    const audio = await writeAudio(200);
    const params = { audio_reference: audio, image_reference: mockFixture('portrait.png') };
    const controller = new AbortController();
    const first = client.videos.generateLong(params, {
      output: join(dir, 'resume.mp4'),
      ...fast,
      workDir,
      concurrency: 2,
      signal: controller.signal,
      onRunProgress: (p) => {
        if (p.segments.some((s) => s.status === 'downloaded')) controller.abort();
      },
    });
    await expect(first).rejects.toBeInstanceOf(APIUserAbortError);
    const createdBefore = mock.creates;
    expect(createdBefore).toBeGreaterThan(0);
    const manifest = JSON.parse(await readFile(join(workDir, 'manifest.json'), 'utf8'));
    const jobIds = manifest.segments.map((s: { jobId: string | null }) => s.jobId).filter(Boolean);
    expect(jobIds.length).toBe(createdBefore);

    const result = await client.videos.generateLong(params, { output: join(dir, 'resume.mp4'), ...fast, workDir, concurrency: 2 });
    expect(mock.creates).toBe(result.segments.length);
    expect(result.segments.map((v) => v.id)).toEqual(expect.arrayContaining(jobIds));
    expect(await durationOf(result.path)).toBeCloseTo(200, 0);
  });

  it('refuses a work folder that holds another run', async () => {
    const workDir = join(dir, 'work');
    const params = { audio_reference: await writeAudio(100), image_reference: mockFixture('portrait.png') };
    const controller = new AbortController();
    await client.videos
      .generateLong(params, {
        output: join(dir, 'a.mp4'),
        ...fast,
        workDir,
        signal: controller.signal,
        onRunProgress: () => controller.abort(),
      })
      .catch(() => {});
    expect((await readdir(workDir)).includes('manifest.json')).toBe(true);
    await expect(
      client.videos.generateLong({ ...params, audio_reference: await writeAudio(90) }, { output: join(dir, 'a.mp4'), ...fast, workDir }),
    ).rejects.toThrow(/different long video/);
  });
});

describe('generateLong takes every input generate takes', () => {
  // Both inputs are read more than once (checked, then split or uploaded); a stream can be read only once.
  it('a stream of long audio and a stream image', async () => {
    const output = join(dir, 'streamed.mp4');
    const result = await client.videos.generateLong(
      { audio_reference: createReadStream(await writeAudio(100)), image_reference: createReadStream(mockFixture('portrait.png')) },
      { output, ...fast },
    );
    expect(result.segments).toHaveLength(2);
    expect(await durationOf(output)).toBeCloseTo(100, 0);
  });

  it('a stream of short audio (one ordinary generate), named with toFile', async () => {
    const audio = Readable.toWeb(createReadStream(await writeAudio(20))) as ReadableStream<Uint8Array>;
    const result = await client.videos.generateLong(
      { audio_reference: toFile(audio, 'talk.wav'), image_reference: mockFixture('portrait.png') },
      { output: join(dir, 'short-stream.mp4'), ...fast },
    );
    expect(result.segments).toHaveLength(1);
    expect(result.durationSeconds).toBeCloseTo(20, 0);
    expect(mock.creates).toBe(1);
  });
});
