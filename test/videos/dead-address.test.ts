/**
 * A dead or stale base URL (issue 37): every workflow that makes a video (`generate`, `createAndWait`,
 * `generateBatch`, `generateLong`) against a loopback port that refuses connections fails within seconds with the
 * connection's own error, after a quick try or two, and says so once. Over a real socket; the creates sent are
 * counted on the public `avatar-video:request` channel rather than timed (before the fix: 21 of them, over two minutes).
 * The backoff between them is real: 0.5 s then 1 s.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';
import { freePort } from '../helpers/system-command.js';

/** A create that opened no connection is sent this many times in all: the first and two more (README, retry-budgets.md). */
const TRIES = 3;

const closers = useCleanup();
let dir: string;
let client: AvatarVideo;
const warnings: string[] = [];

/** Each create attempt, as the SDK's request channel reports it. */
const channel = diagnostics_channel.tracingChannel('avatar-video:request');
let creates = 0;
const onStart = (trace: { method?: string; route?: string }) => {
  if (trace.method === 'POST' && trace.route === '/v1/videos') creates += 1;
};
const subscriber = { start: onStart, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };

afterEach(() => channel.unsubscribe(subscriber as never));

beforeEach(async () => {
  warnings.splice(0);
  creates = 0;
  channel.subscribe(subscriber as never);
  dir = await mkdtemp(join(tmpdir(), 'avatar-dead-address-'));
  const logger = { debug() {}, info() {}, warn: (line: string) => void warnings.push(line), error() {} };
  client = new AvatarVideo({
    apiKey: 'sk_test_dead',
    // A port just listened on and closed: nothing listens there, so connecting is refused.
    baseURL: `http://127.0.0.1:${await freePort()}`,
    logger,
  });
  closers.push(
    () => client.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
});

const params = () => ({ audio_reference: wav(1), image_reference: mockFixture('portrait.png') });

/** The one warning a client gives for it, naming the refusal. */
function expectOneWarning() {
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/could not connect: .*ECONNREFUSED.*Trying again in \d+ ms, 2 times at most/);
}

describe('a base URL where nothing listens', () => {
  it('generate fails after three tries (about 1.5 s of backoff, not two minutes) with the connection error', async () => {
    const error = await client.videos.generate(params(), { output: join(dir, 'a.mp4') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(creates).toBe(TRIES);
    expectOneWarning();
  });

  it('createAndWait alike', async () => {
    const error = await client.videos.createAndWait(params()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(creates).toBe(TRIES);
    expectOneWarning();
  });

  it('generateBatch: each item fails within the bound, saying nothing was sent; one warning for the batch', async () => {
    const audio = join(dir, 'speech.wav');
    await writeFile(audio, wav(1));
    const items = ['a', 'b', 'c'].map((key) => ({ key, audio_reference: audio, image_reference: mockFixture('portrait.png') }));
    const summary = await client.videos.generateBatch(items, { outputDir: join(dir, 'out') });
    expect(summary).toMatchObject({ completed: 0, failed: 3 });
    for (const result of summary.results) {
      expect(result.error?.message).toContain('Nothing was sent (no connection opened)');
      expect(result.error?.message).not.toContain('may have reached the service');
    }
    expect(creates).toBe(items.length * TRIES);
    expectOneWarning();
  });

  it('generateLong: its first segment’s create fails the same way', async () => {
    const audio = join(dir, 'long.wav');
    await writeFile(audio, speechLikeWav(70));
    const long = { audio_reference: audio, image_reference: mockFixture('portrait.png') };
    const error = await client.videos.generateLong(long, { output: join(dir, 'long.mp4'), concurrency: 1 }).catch((e) => e);
    expect(String(error)).toContain('ECONNREFUSED');
    expect(creates).toBe(TRIES);
    expectOneWarning();
  });
});
