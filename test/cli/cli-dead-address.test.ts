/**
 * `avatar-video generate` and `batch` with a dead or stale AVATAR_VIDEO_BASE_URL (issue 37): a loopback port that
 * refuses connections. The command says so in one line on the first retry, then fails after three creates (counted
 * on the SDK's request channel, not timed: before the fix it sent 21 over two minutes), saying nothing was sent.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { freePort } from '../helpers/system-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Creates sent in all for one video when no connection opens: the first and two more. */
const TRIES = 3;

const closers = useCleanup();
let work: string;
let address: string;

const channel = diagnostics_channel.tracingChannel('avatar-video:request');
let creates = 0;
const onStart = (trace: { method?: string; route?: string }) => {
  if (trace.method === 'POST' && trace.route === '/v1/videos') creates += 1;
};
const subscriber = { start: onStart, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };

beforeEach(async () => {
  creates = 0;
  channel.subscribe(subscriber as never);
  // A port just listened on and closed: nothing listens there, so connecting is refused.
  address = `http://127.0.0.1:${await freePort()}`;
  work = await mkdtemp(join(tmpdir(), 'avatar-dead-cli-'));
  closers.push(() => rm(work, { recursive: true, force: true }));
  await mkdir(join(work, 'media'));
  await copyFile(join(root, 'examples/media/speech.wav'), join(work, 'media/speech.wav'));
  await copyFile(join(root, 'examples/media/portrait.png'), join(work, 'media/portrait.png'));
});
afterEach(() => channel.unsubscribe(subscriber as never));

const run = (args: string[]) =>
  runCli(args, { cwd: work, env: { AVATAR_VIDEO_API_KEY: 'sk_test_dead', AVATAR_VIDEO_BASE_URL: address, NO_COLOR: '1' } });

/** The lines other than the error: the SDK's warnings and notes. */
const retryLines = (stderr: string) => stderr.split('\n').filter((line) => /^(warning|info):/.test(line));

it('generate: one line on the first retry, then the refusal, naming the address, after three creates', async () => {
  const result = await run(['generate', '--image', 'media/portrait.png', '--audio', 'media/speech.wav', '-o', 'out.mp4']);
  expect(result.code).toBe(1);
  expect(retryLines(result.stderr)).toHaveLength(1);
  expect(retryLines(result.stderr)[0]).toMatch(/^warning: .*could not connect: .*ECONNREFUSED.*Trying again in \d+ ms/);
  const port = new URL(address).port;
  expect(result.stderr).toContain(`error: Could not connect to 127.0.0.1:${port}`);
  expect(result.stderr).toContain('the connection was refused, so nothing was sent');
  expect(creates).toBe(TRIES);
});

it('batch: every item fails after three creates, the report saying nothing was sent; one retry line for the batch', async () => {
  const rows = ['key,audio,image', 'a,media/speech.wav,media/portrait.png', 'b,media/speech.wav,media/portrait.png'];
  await writeFile(join(work, 'items.csv'), rows.join('\n'));
  const result = await run(['batch', 'items.csv', '--out-dir', 'out']);
  expect(result.code).toBe(1);
  expect(retryLines(result.stderr)).toHaveLength(1);
  const report = await readFile(join(work, 'out', 'report.csv'), 'utf8');
  expect(report.match(/Nothing was sent \(no connection opened\)/g)).toHaveLength(2);
  expect(report).not.toContain('may have reached the service');
  expect(creates).toBe(2 * TRIES);
});
