/**
 * `avatar-video batch`, run in this process (test/helpers/cli.ts) against the loopback mock: a file with bad rows
 * creates nothing (exit 2); a good one makes every video and report.csv (exit 0); failed items give exit 1 and are
 * in the report. Ctrl-C with a real SIGINT, and the rerun after it, are in test/e2e/cli.test.ts.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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
  mock = await startMockServer({ processingMs: 200 });
  closers.push(mock.close);
});
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'avatar-batch-cli-'));
  closers.push(() => rm(work, { recursive: true, force: true }));
  await mkdir(join(work, 'media'));
  await copyFile(join(root, 'examples/media/speech.wav'), join(work, 'media/speech.wav'));
  await copyFile(join(root, 'examples/media/portrait.png'), join(work, 'media/portrait.png'));
});

/** Run the CLI in `work` against the mock. */
const run = (args: string[]) =>
  runCli(args, { cwd: work, env: { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1' } });

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
  expect(result.stderr).toContain('items.csv:5 two-visuals (video): give an image or a video, not both\n');
  expect(result.stderr).not.toMatch(/_reference/); // the file has columns, not the SDK's parameters
  expect(mock.requests.length).toBe(before);
});

it("a row's problems name its line, key and column, and no flag (batch has no --audio)", async () => {
  await writeFile(join(work, 'media/noise.wav'), 'not a wav');
  await writeFile(join(work, 'items.csv'), 'key,audio,image\nnoisy,media/noise.wav,media/portrait.png\n');
  const result = await run(['--json', 'batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe('error: items.csv:2 noisy (audio): noise.wav is a text file; audio must be WAV or MP3\n');
  expect(result.json().error.problems).toEqual([
    expect.objectContaining({ index: 0, key: 'noisy', field: 'audio_reference', code: 'unsupported_format' }),
  ]);
});

it('a file of a row that does not exist is named, with its row and column', async () => {
  const rows = ['key,audio,image', 'gone,media/speech.wav,media/nope.png', 'ok,media/speech.wav,media/portrait.png'];
  await writeFile(join(work, 'items.csv'), rows.join('\n'));
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(`error: items.csv:2 gone (image): ${join(work, 'media/nope.png')} does not exist\n`);
});

it('a batch file that does not exist is a usage error, said with every other problem', async () => {
  const result = await runCli(['batch', 'none.jsonl', '--out-dir', 'out'], { cwd: work, env: { AVATAR_VIDEO_API_KEY: undefined } });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/AVATAR_VIDEO_API_KEY is not set/);
  expect(result.stderr).toContain('none.jsonl does not exist');
  // A CSV is read through a parser: a read error once ended the process (an unhandled stream error).
  expect((await run(['batch', 'none.csv', '--out-dir', 'out'])).stderr).toBe('error: none.csv does not exist\n');
});

// /proc/self/mem is a file that cannot be read from its start (EIO): a read error after the file was found.
it.skipIf(process.platform !== 'linux')('a batch file that cannot be read is a usage error, not an unhandled stream error', async () => {
  await symlink('/proc/self/mem', join(work, 'items.csv'));
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^error: cannot read items\.csv: .*EIO/);
});

it('an unknown column is a usage error', async () => {
  await writeFile(join(work, 'items.csv'), 'key,audio,portrait\na,media/speech.wav,media/portrait.png\n');
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe("error: items.csv: unknown column 'portrait'; the columns are key, audio, image, video, model\n");
});

it('a refused batch leaves no out-dir it made, and keeps one that was there', async () => {
  await writeFile(join(work, 'bad.csv'), 'key,audio,image\na,media/nope.wav,media/portrait.png\n');
  await writeFile(join(work, 'odd.csv'), 'key,audio,portrait\na,media/speech.wav,media/portrait.png\n');
  for (const file of ['bad.csv', 'odd.csv']) {
    expect((await run(['batch', file, '--out-dir', 'new/out'])).code).toBe(2);
    expect(existsSync(join(work, 'new'))).toBe(false);
  }
  await mkdir(join(work, 'kept'));
  expect((await run(['batch', 'bad.csv', '--out-dir', 'kept'])).code).toBe(2);
  expect(await readdir(join(work, 'kept'))).toEqual([]);
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
  // The progress lines count items and give the time left at the create rate (the published 2 a minute here).
  expect(result.stderr).toMatch(/1 done, 0 failed, \d+ running, ETA \d+ (s|min)/);
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
  expect(again.stderr).toMatch(
    /^3 jobs, 36 billed seconds, about 3 minutes at 2 creates a minute; rows already saved in .*out are skipped/,
  );
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
