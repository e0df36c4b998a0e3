/**
 * `avatar-video batch`, built by the project's tsup config and run as a subprocess against the loopback mock:
 * a file with bad rows creates nothing (exit 2); a good one makes every video and report.csv (exit 0); failed
 * items give exit 1 and are in the report.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../src/testing/index.js';
import { speechLikeWav } from './helpers/media.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildDir = join(root, '.tmp', `batch-cli-test-${process.pid}`);
const cli = join(buildDir, 'cli.js');

let mock: MockServer;
let work: string;

beforeAll(async () => {
  execFileSync('npx', ['tsup', '--out-dir', buildDir, '--no-dts', '--silent'], { cwd: root, stdio: 'pipe' });
  mock = await startMockServer({ processingMs: 200 });
}, 60_000);
afterAll(async () => {
  await mock?.close();
  await rm(buildDir, { recursive: true, force: true });
});
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'avatar-batch-cli-'));
  await mkdir(join(work, 'media'));
  await copyFile(join(root, 'examples/media/speech.wav'), join(work, 'media/speech.wav'));
  await copyFile(join(root, 'examples/media/portrait.png'), join(work, 'media/portrait.png'));
  return () => rm(work, { recursive: true, force: true });
});

/** Run the built CLI against the mock; with `interruptWhen`, send Ctrl-C (SIGINT) once it holds. */
function run(args: string[], interruptWhen?: () => boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1' };
  const child = spawn(process.execPath, [cli, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const watch = setInterval(() => {
    if (!interruptWhen?.()) return;
    clearInterval(watch);
    child.kill('SIGINT');
  }, 10);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      clearInterval(watch);
      resolve({ code, stdout, stderr });
    });
  });
}

/** report.csv as rows of fields (no field in these tests holds a comma or a quote). */
const readReport = async (dir: string) =>
  (await readFile(join(dir, 'report.csv'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => line.split(','));

it('a CSV with bad rows reports each of them and creates nothing', async () => {
  await writeFile(join(work, 'media/noise.wav'), 'not a wav');
  const csv = [
    'key,audio,image,video,model',
    'ok,media/speech.wav,media/portrait.png,,',
    'ok,media/speech.wav,media/portrait.png,,',
    'noisy,media/noise.wav,media/portrait.png,,',
    'two-visuals,media/speech.wav,media/portrait.png,media/speech.wav,',
  ].join('\n');
  await writeFile(join(work, 'items.csv'), csv);
  const before = mock.requests.length;
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('items.csv:3 ok');
  expect(result.stderr).toContain('used twice');
  expect(result.stderr).toMatch(/items\.csv:4 noisy \(audio\)/);
  expect(result.stderr).toContain('items.csv:5 two-visuals');
  expect(mock.requests.length).toBe(before);
});

it('an unknown column is a usage error', async () => {
  await writeFile(join(work, 'items.csv'), 'key,audio,portrait\na,media/speech.wav,media/portrait.png\n');
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("unknown column 'portrait'");
});

it('a good CSV makes every video and report.csv; running it again skips them', async () => {
  // The CSV sits in a folder of its own: its paths are relative to it, not to the working directory.
  await mkdir(join(work, 'lists'));
  const rows = ['a', 'b', 'c'].map((key) => `${key},../media/speech.wav,../media/portrait.png,,`);
  await writeFile(join(work, 'lists/items.csv'), ['key,audio,image,video,model', ...rows].join('\n'));
  const before = mock.creates;
  const result = await run(['batch', 'lists/items.csv', '--out-dir', 'out', '--concurrency', '2']);
  expect(result.stderr).not.toContain('error');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('3 completed');
  // The progress lines count items and, once one has finished, give an ETA.
  expect(result.stderr).toMatch(/1 done, 0 failed, \d+ running, ETA \d+ s/);
  expect(mock.creates - before).toBe(3);
  const report = await readReport(join(work, 'out'));
  expect(report[0]).toEqual(['key', 'status', 'video_id', 'path', 'error_code', 'error_message', 'segment_ids']);
  expect(report.slice(1).map((row) => row.slice(0, 2))).toEqual([
    ['a', 'complete'],
    ['b', 'complete'],
    ['c', 'complete'],
  ]);
  for (const row of report.slice(1)) {
    const bytes = await readFile(row[3] as string);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  }
  const again = await run(['batch', 'lists/items.csv', '--out-dir', 'out', '--json']);
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ completed: 0, skipped: 3, failed: 0 });
  expect(mock.creates - before).toBe(3);
});

it('a row whose audio is longer than one job allows is made in segments, their job ids in report.csv', async () => {
  await writeFile(join(work, 'media/talk.wav'), speechLikeWav(70));
  await writeFile(join(work, 'items.csv'), 'key,audio,image\ntalk,media/talk.wav,media/portrait.png\n');
  const before = mock.creates;
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(0);
  const [header, row] = await readReport(join(work, 'out'));
  const column = (name: string) => row?.[header?.indexOf(name) ?? -1];
  expect(column('status')).toBe('complete');
  expect(column('video_id')).toBe('');
  const segments = column('segment_ids')?.split(';');
  expect(segments).toHaveLength(2);
  expect(segments?.every((id) => mock.getVideo(id)?.status === 'COMPLETE')).toBe(true);
  expect(mock.creates - before).toBe(2);
});

it('a JSONL file with a failing item exits 1 and names the failure in the report', async () => {
  mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'No face found.' } });
  const lines = ['x', 'y'].map((key) => JSON.stringify({ key, audio: 'media/speech.wav', image: 'media/portrait.png' }));
  await writeFile(join(work, 'items.jsonl'), `${lines.join('\n')}\n`);
  const result = await run(['batch', 'items.jsonl', '--out-dir', 'out', '--concurrency', '1']);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('failed x: face_not_found');
  const report = await readReport(join(work, 'out'));
  expect(report[1]?.slice(0, 2)).toEqual(['x', 'failed']);
  expect(report[1]?.[4]).toBe('face_not_found');
  expect(report[2]?.slice(0, 2)).toEqual(['y', 'complete']);
});

it('an --out-dir that is a file is a usage error, before any request', async () => {
  await writeFile(join(work, 'items.csv'), 'key,audio,image\na,media/speech.wav,media/portrait.png\n');
  await writeFile(join(work, 'taken'), '');
  const before = mock.requests.length;
  const result = await run(['batch', 'items.csv', '--out-dir', 'taken']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/--out-dir: .*taken is a file, not a folder/);
  expect(mock.requests.length).toBe(before);
});

it('--concurrency takes a number or auto', async () => {
  await writeFile(join(work, 'items.csv'), 'key,audio,image\n');
  const result = await run(['batch', 'items.csv', '--out-dir', 'out', '--concurrency', 'lots']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("expected 'auto' or a whole number");
});

it('Ctrl-C stops the batch (exit 130) and says to run it again; the rerun waits on the jobs made instead of paying again', async () => {
  const rows = ['p', 'q'].map((key) => `${key},media/speech.wav,media/portrait.png,,`);
  await writeFile(join(work, 'items.csv'), ['key,audio,image,video,model', ...rows].join('\n'));
  // Jobs slow enough to be running when Ctrl-C lands.
  const quick = mock;
  mock = await startMockServer({ processingMs: 1_500 });
  try {
    const running = () => mock.state.listVideos().filter((v) => v.status === 'PROCESSING').length;
    const stopped = await run(['batch', 'items.csv', '--out-dir', 'out', '--concurrency', '2'], () => running() === 2);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('run the same command again to resume');
    expect(mock.creates).toBe(2);
    const again = await run(['batch', 'items.csv', '--out-dir', 'out', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ completed: 2, failed: 0 });
    expect(mock.creates).toBe(2);
  } finally {
    await mock.close();
    mock = quick;
  }
});
