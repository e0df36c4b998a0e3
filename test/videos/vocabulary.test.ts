/**
 * One vocabulary on every method, against the mock over loopback: each new option name works, and each old name it
 * replaces still works as before, with one warning per client however many calls pass it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';

const closers = useCleanup();
let mock: MockServer;
let dir: string;
const warnings: string[] = [];
const logger = { debug() {}, info() {}, warn: (line: string) => void warnings.push(line), error() {} };
const newClient = (limits?: { maxAudioSeconds: number }) => {
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logger, limits });
  closers.push(() => client.close());
  return client;
};

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 60 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-vocab-'));
  closers.push(
    () => rm(dir, { recursive: true, force: true }),
    () => mock.close(),
  );
});
afterEach(() => {
  warnings.splice(0);
});

const fast = { pollInterval: 20, maxPollInterval: 40 };
const IMAGE = mockFixture('portrait.png');
const params = () => ({ audio_reference: wav(1), image_reference: IMAGE });
const warned = (name: string) => warnings.filter((line) => line.includes(`option ${name} is deprecated`));

/** A WAV of `seconds` of speech-like sound in the test's folder, for runs that split it. */
async function longAudio(seconds: number): Promise<string> {
  const path = join(dir, `speech-${seconds}.wav`);
  await writeFile(path, speechLikeWav(seconds));
  return path;
}

describe('onRunProgress, and onProgress as its deprecated alias on the run methods', () => {
  it('generateLong reports its phases to onRunProgress, without a warning', async () => {
    const phases: string[] = [];
    const client = newClient();
    const audio = await longAudio(70);
    await client.videos.generateLong(
      { audio_reference: audio, image_reference: IMAGE },
      { output: join(dir, 'long.mp4'), ...fast, onRunProgress: (p) => phases.push(p.phase) },
    );
    expect(phases[0]).toBe('split');
    expect(phases).toContain('segments');
    expect(phases.at(-1)).toBe('done');
    expect(warnings).toEqual([]);
  });

  it('onProgress of generateLong and generateBatch is still called with the run’s progress: one warning for all calls', async () => {
    const client = newClient();
    for (const run of [1, 2]) {
      const fractions: number[] = [];
      await client.videos.generateLong(params(), {
        output: join(dir, `one${run}.mp4`),
        ...fast,
        onProgress: (p) => fractions.push(p.fraction),
      });
      expect(fractions).toEqual([1]);
      const counts: number[] = [];
      await client.videos.generateBatch([{ key: 'a', ...params() }], {
        outputDir: join(dir, `old${run}`),
        ...fast,
        onProgress: (p) => counts.push(p.done),
      });
      expect(counts.at(-1)).toBe(1);
    }
    expect(warned('onProgress')).toHaveLength(1);
    expect(warned('onProgress')[0]).toContain('use onRunProgress');
  });

  it('generateBatch reports its counts to onRunProgress', async () => {
    const client = newClient();
    const counts: number[] = [];
    await client.videos.generateBatch([{ key: 'a', ...params() }], {
      outputDir: join(dir, 'new'),
      ...fast,
      onRunProgress: (p) => counts.push(p.done),
    });
    expect(counts.at(-1)).toBe(1);
    expect(warnings).toEqual([]);
  });
});

describe('onDownloadProgress, and download’s onProgress as its deprecated alias', () => {
  it('download reports its bytes to onDownloadProgress up to the total; onProgress still works, with one warning', async () => {
    const client = newClient();
    const video = await client.videos.createAndWait(params(), fast);
    const seen: Array<{ bytes: number; total: number | undefined }> = [];
    const saved = await client.videos.download(video, join(dir, 'new.mp4'), { onDownloadProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ bytes: saved.bytes, total: saved.bytes });
    expect(warnings).toEqual([]);
    for (const run of [1, 2]) {
      const old: number[] = [];
      const again = await client.videos.download(video, join(dir, `old${run}.mp4`), { onProgress: ({ bytes }) => old.push(bytes) });
      expect(old.at(-1)).toBe(again.bytes);
    }
    expect(warned('onProgress')).toHaveLength(1);
    expect(warned('onProgress')[0]).toContain('use onDownloadProgress');
  });

  it('warns each client once: what one client was told does not silence another', async () => {
    const [first, second] = [newClient(), newClient()];
    const video = await first.videos.createAndWait(params(), fast);
    for (const [client, name] of [
      [first, 'a'],
      [first, 'b'],
      [second, 'c'],
    ] as const) {
      await client.videos.download(video, join(dir, `${name}.mp4`), { onProgress: () => {} });
    }
    expect(warned('onProgress')).toHaveLength(2);
  });
});

describe('onUploadProgress on create and every method that creates', () => {
  const posted = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos');
  /** The last create's Content-Length, as the mock received it. */
  const sentLength = () => Number(posted().at(-1)?.headers['content-length']);

  it('create counts the body handed to the socket from 0 to its Content-Length', async () => {
    const client = newClient();
    const seen: Array<{ bytes: number; total: number }> = [];
    await client.videos.create({ audio_reference: wav(5), image_reference: IMAGE }, { onUploadProgress: (p) => seen.push(p) });
    const total = sentLength();
    expect(total).toBeGreaterThan(80_000);
    expect(seen[0]).toEqual({ bytes: 0, total });
    expect(seen.at(-1)).toEqual({ bytes: total, total });
    const bytes = seen.map((p) => p.bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
    expect(seen.length).toBeGreaterThan(2);
  });

  it('createAndWait, generate, generateLong and generateBatch report each create’s upload', async () => {
    const client = newClient();
    const last = () => {
      const seen: Array<{ bytes: number; total: number }> = [];
      return { seen, onUploadProgress: (p: { bytes: number; total: number }) => seen.push(p) };
    };
    const calls = [
      (on: ReturnType<typeof last>) => client.videos.createAndWait(params(), { ...fast, onUploadProgress: on.onUploadProgress }),
      (on: ReturnType<typeof last>) =>
        client.videos.generate(params(), { ...fast, output: join(dir, 'g.mp4'), onUploadProgress: on.onUploadProgress }),
      (on: ReturnType<typeof last>) =>
        client.videos.generateLong(params(), { ...fast, output: join(dir, 'l.mp4'), onUploadProgress: on.onUploadProgress }),
      (on: ReturnType<typeof last>) =>
        client.videos.generateBatch([{ key: 'k', ...params() }], {
          ...fast,
          outputDir: join(dir, 'b'),
          onUploadProgress: on.onUploadProgress,
        }),
    ];
    for (const call of calls) {
      const on = last();
      await call(on);
      expect(on.seen.at(-1)).toEqual({ bytes: sentLength(), total: sentLength() });
    }
    expect(posted()).toHaveLength(4);
  });

  it('starts again from 0 when a refused create is sent again', async () => {
    const client = newClient();
    mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 503, headers: { 'retry-after': '0' }, times: 1 });
    const seen: number[] = [];
    await client.videos.createAndWait(params(), { ...fast, onUploadProgress: ({ bytes }) => seen.push(bytes) });
    expect(posted()).toHaveLength(2);
    expect(seen.filter((bytes) => bytes === 0)).toHaveLength(2);
    expect(seen.at(-1)).toBe(sentLength());
  });
});

describe('the new names are checked as every callback is', () => {
  it.each([
    ['videos.create', 'onUploadProgress'],
    ['videos.download', 'onDownloadProgress'],
    ['videos.generateBatch', 'onRunProgress'],
  ])('%s refuses %s that is not a function, before any request', async (method, name) => {
    const client = newClient();
    const options = { [name]: 1, output: join(dir, 'x.mp4'), outputDir: join(dir, 'x') } as never;
    const call =
      method === 'videos.create'
        ? client.videos.create(params(), options)
        : method === 'videos.download'
          ? client.videos.download('vid_1', join(dir, 'x.mp4'), options)
          : client.videos.generateBatch([], options);
    await expect(call).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: name });
    expect(mock.requests).toHaveLength(0);
  });
});

describe('maxSegmentSeconds: one default, the client’s limits.maxAudioSeconds', () => {
  const posts = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;

  it('splits 45 s of audio under maxAudioSeconds: 30 in generateLong and in a batch alike', async () => {
    const client = newClient({ maxAudioSeconds: 30 });
    const audio = await longAudio(45);
    const long = await client.videos.generateLong(
      { audio_reference: audio, image_reference: IMAGE },
      { output: join(dir, 'l.mp4'), ...fast },
    );
    expect(long.segments).toHaveLength(2);
    const batch = await client.videos.generateBatch([{ key: 'b', audio_reference: audio, image_reference: IMAGE }], {
      outputDir: join(dir, 'batch'),
      ...fast,
    });
    expect(batch.results[0]?.segmentVideoIds).toHaveLength(2);
    expect(posts()).toBe(4);
  });

  it('makes 45 s of audio one job in both under the default 60', async () => {
    const client = newClient();
    const audio = await longAudio(45);
    const long = await client.videos.generateLong(
      { audio_reference: audio, image_reference: IMAGE },
      { output: join(dir, 'l.mp4'), ...fast },
    );
    expect(long.segments).toHaveLength(1);
    const batch = await client.videos.generateBatch([{ key: 'b', audio_reference: audio, image_reference: IMAGE }], {
      outputDir: join(dir, 'batch'),
      ...fast,
    });
    expect(batch.results[0]).toMatchObject({ status: 'complete', videoId: expect.any(String) });
    expect(posts()).toBe(2);
  });

  it('sends 120 s of audio under maxAudioSeconds: 180 as one create in both (the mock then refuses it: over its 60 s)', async () => {
    const client = newClient({ maxAudioSeconds: 180 });
    const audio = await longAudio(120);
    await expect(
      client.videos.generateLong({ audio_reference: audio, image_reference: IMAGE }, { output: join(dir, 'l.mp4'), ...fast }),
    ).rejects.toThrow();
    expect(posts()).toBe(1);
    const batch = await client.videos.generateBatch([{ key: 'b', audio_reference: audio, image_reference: IMAGE }], {
      outputDir: join(dir, 'batch'),
      ...fast,
    });
    expect(batch.results[0]).toMatchObject({ status: 'failed' });
    expect(batch.results[0]?.segmentVideoIds).toBeUndefined();
    expect(posts()).toBe(2);
  });
});
