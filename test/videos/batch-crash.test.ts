/**
 * A batch process killed with SIGKILL half way, then run again over the same folder: the ledger must keep every
 * job the first process paid for, so the rerun makes only the jobs still missing (plus at most the ones whose
 * create answer had not arrived when the process died).
 */
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeEach, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { spawnBatchChild } from '../helpers/batch-child-process.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';

const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const ITEMS = 16;

const closers = useCleanup();
let mock: MockServer;
let dir: string;
beforeEach(async () => {
  mock = await startMockServer({ processingMs: 300 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-batch-crash-'));
  closers.push(
    () => mock.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
});

it('survives a SIGKILL half way: the rerun finishes every file and pays for at most 2 extra jobs', async () => {
  const audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
  const out = join(dir, 'out');
  const child = spawnBatchChild([mock.baseURL, mock.apiKey, out, audio, IMAGE, String(ITEMS)]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  let saved = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('complete ')) saved += 1;
    if (saved === ITEMS / 2) {
      child.kill('SIGKILL');
      break;
    }
  }
  const [code, signal] = (await exited) as [number | null, string | null];
  expect({ code, signal, stderr }).toMatchObject({ signal: 'SIGKILL' });
  const createdByFirst = mock.creates;
  expect(createdByFirst).toBeGreaterThanOrEqual(ITEMS / 2);

  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(() => client.close());
  const items = Array.from({ length: ITEMS }, (_, i) => ({ key: `item-${i}`, audio_reference: audio, image_reference: IMAGE }));
  const summary = await client.videos.generateBatch(items, { outputDir: out, pollInterval: 40, maxPollInterval: 80 });
  expect(summary.failed).toBe(0);
  expect(summary.completed + summary.skipped).toBe(ITEMS);
  expect(summary.skipped).toBeGreaterThanOrEqual(ITEMS / 2);
  // Jobs the first process made are waited on, not made again: the rerun creates only what was never
  // created, plus at most the creates whose answer was lost with the process.
  expect(mock.creates - createdByFirst).toBeLessThanOrEqual(ITEMS - createdByFirst + 2);
  expect(mock.creates).toBeLessThanOrEqual(ITEMS + 2);
  for (const result of summary.results) {
    const mp4 = await summarizeMp4(result.path as string);
    expect(Object.values(mp4.tags).join(' ')).toContain(`job=${result.videoId}`);
  }
  expect((await readdir(out)).filter((f) => !f.endsWith('.mp4')).sort()).toEqual(['.avatar-video-batch.jsonl']);
});
