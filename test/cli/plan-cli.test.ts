/**
 * The plan in the CLI, run in this process against the loopback mock: `generate --dry-run` and `batch --dry-run` print
 * it (or, with --json, the plan object) and send nothing; a real batch says its line before it starts; `--create-rate`
 * sets the client's rate, which the plan assumes.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { speechLikeWav } from '../helpers/media.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

let mock: MockServer;
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 100 });
  closers.push(mock.close);
});
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'avatar-plan-cli-'));
  closers.push(() => rm(work, { recursive: true, force: true }));
  await mkdir(join(work, 'media'));
  await copyFile(join(root, 'examples/media/speech.wav'), join(work, 'media/speech.wav'));
  await copyFile(join(root, 'examples/media/portrait.png'), join(work, 'media/portrait.png'));
  await writeFile(join(work, 'media/talk.wav'), speechLikeWav(70));
});

const env = (extra: Record<string, string | undefined> = {}) => ({
  AVATAR_VIDEO_API_KEY: mock.apiKey,
  AVATAR_VIDEO_BASE_URL: mock.baseURL,
  AVATAR_VIDEO_CREATE_RATE: undefined,
  NO_COLOR: '1',
  ...extra,
});
const run = (args: string[], extra?: Record<string, string | undefined>) => runCli(args, { cwd: work, env: env(extra) });

const ROWS = ['key,audio,image', 'a,media/speech.wav,media/portrait.png', 'talk,media/talk.wav,media/portrait.png'];

it('batch --dry-run prints each row, the plan line and what it assumes, sends nothing and needs no --out-dir', async () => {
  await writeFile(join(work, 'items.csv'), ROWS.join('\n'));
  const before = mock.requests.length;
  const result = await run(['batch', 'items.csv', '--dry-run']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^a {5}1 job, 8\.2 s of audio, 12 billed seconds$/);
  expect(lines[1]).toMatch(/^talk {2}2 jobs, 70\.0 s of audio, \d+ billed seconds in segments of [\d.]+ \+ [\d.]+ s$/);
  // 3 jobs at the published 2 a minute, 120 s a job: the last created at 60 s, done at 180 s.
  expect(lines[2]).toMatch(/^3 jobs, \d+ billed seconds, about 3 minutes at 2 creates a minute$/);
  expect(lines[3]).toBe(
    "assumes 2 creates a minute (the service's published rate; declare yours with --create-rate), 120 s a job (the spec's typical time), billing in 6 s steps",
  );
  expect(lines[4]).toBe('dry run: nothing was sent');
  expect(mock.requests.length).toBe(before);
  expect(existsSync(join(work, 'out'))).toBe(false);
});

it('--json batch --dry-run prints the plan object; a row with problems is in it, and the exit code is 2', async () => {
  await writeFile(join(work, 'media/noise.wav'), 'not a wav');
  await writeFile(join(work, 'items.csv'), [...ROWS, 'noisy,media/noise.wav,media/portrait.png'].join('\n'));
  const before = mock.requests.length;
  const result = await run(['--json', 'batch', 'items.csv', '--dry-run', '--create-rate', '1/10']);
  expect(result.code).toBe(2);
  const plan = result.json();
  expect(plan).toMatchObject({ jobs: 3, assumes: { createRate: { limit: 1, windowSeconds: 10 }, createRateSource: 'declared' } });
  expect(plan.earliestFinishSeconds).toBe(2 * 10 + 120);
  expect(plan.items.map((item: { key: string; jobs: number }) => [item.key, item.jobs])).toEqual([
    ['a', 1],
    ['talk', 2],
    ['noisy', 0],
  ]);
  expect(plan.items[2].problems).toEqual([expect.objectContaining({ key: 'noisy', field: 'audio_reference', code: 'unsupported_format' })]);
  expect(plan.billedSeconds).toBe(plan.items.reduce((sum: number, item: { billedSeconds: number }) => sum + item.billedSeconds, 0));
  expect(mock.requests.length).toBe(before);
  // Without --json, the row's problem is said by its line and column, as a real batch says it.
  const human = await run(['batch', 'items.csv', '--dry-run']);
  expect(human.code).toBe(2);
  expect(human.stdout).toContain('items.csv:4 noisy (audio): noise.wav is a text file; audio must be WAV or MP3\n');
  expect(human.stdout).toContain('1 of 3 rows have problems: the batch would create nothing until they are fixed\n');
  expect(mock.requests.length).toBe(before);
});

it('generate --dry-run plans long audio in its segments, saves nothing and sends nothing; --json gives the plan', async () => {
  const before = mock.requests.length;
  const result = await run(['generate', '--audio', 'media/talk.wav', '--image', 'media/portrait.png', '--dry-run']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^talk\.wav {2}2 jobs, 70\.0 s of audio, \d+ billed seconds in segments of /);
  expect(result.stdout).toMatch(/\n2 jobs, \d+ billed seconds, about 2 minutes at 2 creates a minute\n/);
  const json = await run([
    '--json',
    'generate',
    '--audio',
    'media/speech.wav',
    '--image',
    'media/portrait.png',
    '--dry-run',
    '--create-rate',
    '2/6',
  ]);
  expect(json.code).toBe(0);
  expect(json.json()).toMatchObject({
    jobs: 1,
    billedSeconds: 12,
    earliestFinishSeconds: 120,
    assumes: { createRate: { limit: 2, windowSeconds: 6 } },
  });
  expect(mock.requests.length).toBe(before);
  expect(existsSync(join(work, 'talk.mp4')) || existsSync(join(work, 'speech.mp4'))).toBe(false);
});

it('a real batch says its plan line before it starts, and its progress the time left at the declared rate', async () => {
  await writeFile(join(work, 'items.csv'), ROWS.slice(0, 2).join('\n'));
  const before = mock.creates;
  const result = await run(['batch', 'items.csv', '--out-dir', 'out', '--create-rate', '30/60']);
  expect(result.code).toBe(0);
  const [first] = result.stderr.split('\n');
  expect(first).toBe('1 job, 12 billed seconds, about 2 minutes at 30 creates a minute');
  expect(result.stderr).toMatch(/0 done, 0 failed, \d+ running, ETA 2 min/);
  expect(mock.creates - before).toBe(1);
});

it('a batch without --out-dir, or a malformed --create-rate, is a usage error before any request', async () => {
  await writeFile(join(work, 'items.csv'), ROWS.join('\n'));
  const before = mock.requests.length;
  const missing = await run(['batch', 'items.csv']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('give --out-dir <dir>');
  for (const command of [
    ['batch', 'items.csv', '--dry-run'],
    ['generate', '--audio', 'media/speech.wav', '--image', 'media/portrait.png'],
    ['mcp'],
  ]) {
    const result = await run([...command, '--create-rate', 'fast']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected creates per window as <creates>/<seconds>');
  }
  // The environment's rate, when no flag is given; a malformed one is refused as the client refuses it.
  const declared = await run(['--json', 'batch', 'items.csv', '--dry-run'], { AVATAR_VIDEO_CREATE_RATE: '4/60' });
  expect(declared.json().assumes).toMatchObject({ createRate: { limit: 4, windowSeconds: 60 }, createRateSource: 'declared' });
  const bad = await run(['batch', 'items.csv', '--dry-run'], { AVATAR_VIDEO_CREATE_RATE: 'lots' });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('AVATAR_VIDEO_CREATE_RATE must be');
  expect(mock.requests.length).toBe(before);
});
