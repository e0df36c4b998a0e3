/**
 * `videos.plan` against the loopback mock: the jobs, audio, billed seconds and earliest finish of a batch or of one
 * long video, each item's problems in its place, and not one request sent.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AvatarVideo, InvalidArgumentError } from '../../src/index.js';
import { splitAudio } from '../../src/media/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';

const IMAGE = mockFixture('portrait.png');

let mock: MockServer;
let dir: string;

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 100 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-plan-'));
});
afterEach(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

const clientWith = (options: ConstructorParameters<typeof AvatarVideo>[0] = {}) =>
  new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', ...options });

async function file(name: string, bytes: Uint8Array | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

it('plans a batch: one job per short item, the segments of a long one, problems in place, and no request', async () => {
  const short = await file('short.wav', wav(12.5));
  const long = await file('long.wav', speechLikeWav(70));
  const noise = await file('noise.wav', 'not a wav');
  const client = clientWith();
  const plan = await client.videos.plan([
    { key: 'a', audio_reference: short, image_reference: IMAGE },
    { key: 'talk', audio_reference: long, image_reference: IMAGE },
    { key: 'noisy', audio_reference: noise, image_reference: IMAGE },
    { key: 'a', audio_reference: short, image_reference: IMAGE },
  ]);
  await client.close();
  expect(mock.requests.length).toBe(0);
  const [a, talk, noisy, again] = plan.items;
  expect(a).toMatchObject({ index: 0, key: 'a', jobs: 1, billedSeconds: 18, problems: [] });
  expect(a?.segments).toEqual([{ startSeconds: 0, durationSeconds: 12.5, billedSeconds: 18 }]);
  // 70 s over the 60 s limit: the segments the split makes, which add up to the whole.
  expect(talk?.jobs).toBe(2);
  expect(talk?.segments.every((s) => s.durationSeconds <= 60)).toBe(true);
  expect(talk?.segments.reduce((sum, s) => sum + s.durationSeconds, 0)).toBeCloseTo(70, 6);
  for (const s of talk?.segments ?? []) expect(s.billedSeconds).toBe(Math.ceil(s.durationSeconds / 6) * 6);
  expect(noisy).toMatchObject({ index: 2, key: 'noisy', jobs: 0, billedSeconds: 0, segments: [] });
  expect(noisy?.problems).toEqual([
    expect.objectContaining({ index: 2, key: 'noisy', field: 'audio_reference', code: 'unsupported_format' }),
  ]);
  expect(again?.problems).toEqual([expect.objectContaining({ index: 3, code: 'duplicate_key' })]);
  expect(plan.jobs).toBe(3);
  expect(plan.audioSeconds).toBeCloseTo(82.5, 6);
  expect(plan.billedSeconds).toBe(18 + (talk?.billedSeconds ?? 0));
  // The published 2 a minute and the spec's two minutes a job: creates at 0, 0 and 60 s, the last done at 180 s.
  expect(plan.assumes).toEqual({
    createRate: { limit: 2, windowSeconds: 60 },
    createRateSource: 'published',
    jobSeconds: 120,
    jobSecondsSource: 'default',
    billingIncrementSeconds: 6,
  });
  expect(plan.earliestFinishSeconds).toBe(180);
});

it('follows the declared rate, the billing step, jobSeconds and maxSegmentSeconds; one video plans as generateLong makes it', async () => {
  const long = await file('long.wav', speechLikeWav(50));
  const client = clientWith({ createRate: { limit: 1, windowSeconds: 10 }, billingIncrementSeconds: 4 });
  const plan = await client.videos.plan({ audio_reference: long, image_reference: IMAGE }, { maxSegmentSeconds: 20, jobSeconds: 30 });
  await client.close();
  expect(mock.requests.length).toBe(0);
  expect(plan.items).toHaveLength(1);
  expect(plan.items[0]?.key).toBeUndefined();
  expect(plan.jobs).toBe(3);
  for (const s of plan.items[0]?.segments ?? []) expect(s.billedSeconds).toBe(Math.ceil(s.durationSeconds / 4) * 4);
  expect(plan.assumes).toMatchObject({
    createRate: { limit: 1, windowSeconds: 10 },
    createRateSource: 'declared',
    jobSeconds: 30,
    jobSecondsSource: 'option',
  });
  expect(plan.earliestFinishSeconds).toBe(2 * 10 + 30);
});

it.each([
  ['a speech-like WAV', 'wav', 45],
  ['an MP3', 'mp3', 30],
])('plans %s in exactly the segments the split of generateLong makes', async (_name, format, maxSegmentSeconds) => {
  const audio = format === 'wav' ? await file('talk.wav', speechLikeWav(130)) : new URL('../../examples/media/talk.mp3', import.meta.url);
  const client = clientWith();
  const plan = await client.videos.plan([{ key: 'talk', audio_reference: audio, image_reference: IMAGE }], { maxSegmentSeconds });
  await client.close();
  const split = await splitAudio(audio, { maxSegmentSeconds, outputDir: join(dir, 'parts') });
  expect(split.segments.length).toBeGreaterThan(2);
  const planned = plan.items[0]?.segments.map(({ startSeconds, durationSeconds }) => ({ startSeconds, durationSeconds }));
  expect(planned?.map((s) => s.startSeconds)).toEqual(split.segments.map((s) => s.startSeconds));
  // The split measures each file it wrote; the plan, the same cut points.
  for (const [i, s] of (planned ?? []).entries()) expect(s.durationSeconds).toBeCloseTo(split.segments[i]?.durationSeconds ?? 0, 3);
  expect(plan.jobs).toBe(split.segments.length);
  expect(mock.requests.length).toBe(0);
});

it('takes the job time this client has measured once its jobs have run', async () => {
  const audio = await file('one.wav', wav(2));
  const client = clientWith();
  await client.videos.createAndWait({ audio_reference: audio, image_reference: IMAGE }, { pollInterval: 20, maxPollInterval: 40 });
  const plan = await client.videos.plan([{ key: 'x', audio_reference: audio, image_reference: IMAGE }]);
  await client.close();
  expect(plan.assumes.jobSecondsSource).toBe('measured');
  expect(plan.assumes.jobSeconds).toBeLessThan(120);
  expect(plan.earliestFinishSeconds).toBe(plan.assumes.jobSeconds);
});

it('lists the problems of one video too, and refuses wrong arguments before reading anything', async () => {
  const client = clientWith();
  const plan = await client.videos.plan({ audio_reference: join(dir, 'none.wav'), image_reference: IMAGE });
  expect(plan.jobs).toBe(0);
  expect(plan.items[0]?.problems.length).toBeGreaterThan(0);
  await expect(client.videos.plan([], { jobSeconds: -1 })).rejects.toThrow(InvalidArgumentError);
  await expect(client.videos.plan('items.csv' as never)).rejects.toThrow(/videos\.plan: params must be an object/);
  const empty = await client.videos.plan([]);
  expect(empty).toMatchObject({ jobs: 0, audioSeconds: 0, billedSeconds: 0, earliestFinishSeconds: 0, items: [] });
  await client.close();
  expect(mock.requests.length).toBe(0);
});
