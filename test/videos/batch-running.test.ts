/**
 * What `onRunProgress`'s `running` counts (issue 37): rows in flight, once each, from their first job's start to
 * their end: a row downloading its MP4 is still running (it was shown as 0 running, 0 done), and a long row whose
 * segments' jobs run side by side is one row running, not one per segment.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';

const closers = useCleanup();
let mock: MockServer;
let client: AvatarVideo;
let dir: string;

beforeEach(async () => {
  mock = await startMockServer({ processingMs: 100 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'avatar-batch-running-'));
  closers.push(
    () => rm(dir, { recursive: true, force: true }),
    () => mock.close(),
    () => client.close(),
  );
});

const fast = { pollInterval: 20, maxPollInterval: 40 };
type Seen = { done: number; failed: number; running: number; total: number };

/** Once a row has started, it is counted somewhere (running, done or failed) until the end. */
function expectEveryStartedRowCounted(seen: Seen[]) {
  const first = seen.findIndex((progress) => progress.running > 0);
  expect(first).toBeGreaterThanOrEqual(0);
  for (const progress of seen.slice(first)) expect(progress.running + progress.done + progress.failed).toBe(progress.total);
}

it('a row is running through its download, until it is done', async () => {
  const audio = join(dir, 'one.wav');
  await writeFile(audio, wav(1));
  const seen: Seen[] = [];
  const items = [{ key: 'one', audio_reference: audio, image_reference: mockFixture('portrait.png') }];
  const summary = await client.videos.generateBatch(items, { outputDir: join(dir, 'out'), ...fast, onRunProgress: (p) => seen.push(p) });
  expect(summary.completed).toBe(1);
  expectEveryStartedRowCounted(seen);
  expect(seen.at(-1)).toMatchObject({ done: 1, running: 0 });
});

it('a long row is one row running, however many of its segments’ jobs run at once', async () => {
  const audio = join(dir, 'long.wav');
  await writeFile(audio, speechLikeWav(150));
  const seen: Seen[] = [];
  const items = [{ key: 'long', audio_reference: audio, image_reference: mockFixture('portrait.png') }];
  const summary = await client.videos.generateBatch(items, { outputDir: join(dir, 'out'), ...fast, onRunProgress: (p) => seen.push(p) });
  expect(summary.completed).toBe(1);
  expect(Math.max(...seen.map((progress) => progress.running))).toBe(1);
  expectEveryStartedRowCounted(seen);
});
