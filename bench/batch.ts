/**
 * `videos.generateBatch` against the mock with a concurrency limit it is not told (in a child process):
 * wall time against the ideal (the sum of the jobs' durations divided by the limit), 429s per job, and
 * peak RSS of the batch process. Scenarios run one after another in this process, with a fresh client each.
 *
 *   npx tsx bench/batch.ts [items=1000] [processingMs=200] [limit=6]
 *
 * Also runs the issue's 40-item scenario (limit 6, 10% of jobs FAILED with a rate-limit code, 300 ms jobs).
 * Targets: wall <= 1.6x ideal, 429s <= 1 per 4 jobs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as SDK from '../src/index.js';
import { wav } from '../test/helpers/media.js';
import { compile } from './support/build.js';
import { peakRssBytes } from './support/peak-rss.js';

const ITEMS = Number(process.argv[2] ?? 1_000);
const PROCESSING_MS = Number(process.argv[3] ?? 200);
const LIMIT = Number(process.argv[4] ?? 6);
const TSX = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const IMAGE = fileURLToPath(new URL('../test/fixtures/mock/portrait.png', import.meta.url));

const built = await compile(['src/index.ts']);
const { AvatarVideo } = (await import(pathToFileURL(built.paths[0] as string).href)) as typeof SDK;
const work = await mkdtemp(join(tmpdir(), 'bench-batch-'));
const audio = join(work, 'speech.wav');
await writeFile(audio, wav(1));

interface Counters {
  creates: number;
  throttled: number;
  complete: number;
}

async function scenario(name: string, items: number, processingMs: number, limit: number, failureRate: number) {
  const child = spawn(
    TSX,
    [fileURLToPath(new URL('./batch-mock.ts', import.meta.url)), String(processingMs), String(limit), String(failureRate)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const { baseURL, apiKey } = JSON.parse((await lines.next()).value as string) as { baseURL: string; apiKey: string };
  const client = new AvatarVideo({ apiKey, baseURL, logLevel: 'off' });
  // A generator: the batch reads items as a stream, never a prepared array.
  function* source() {
    for (let i = 0; i < items; i++) yield { key: `item-${i}`, audio_reference: audio, image_reference: IMAGE };
  }
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const summary = await client.videos.generateBatch(source(), {
    outputDir: join(work, name),
    // Polls scaled to the jobs as the defaults (2 s to 10 s) are to jobs of a minute or two.
    pollInterval: Math.max(20, processingMs / 10),
    maxPollInterval: Math.max(40, processingMs / 5),
    maxAttempts: 6,
  });
  const wall = performance.now() - started;
  child.stdin!.write('stats\n');
  const counters = JSON.parse((await lines.next()).value as string) as Counters;
  child.stdin!.end();
  await once(child, 'exit');
  await client.close();
  const ideal = (counters.creates * processingMs) / limit;
  const idealItems = (items * processingMs) / limit;
  console.log(
    [
      `${name}: ${items} items, ${processingMs} ms jobs, service limit ${limit}, ${failureRate * 100}% rate-limited jobs`,
      `  completed ${summary.completed}, failed ${summary.failed}; jobs ${counters.creates} (${counters.complete} COMPLETE)`,
      `  wall ${(wall / 1000).toFixed(2)} s; ideal ${(ideal / 1000).toFixed(2)} s (all jobs) -> ${(wall / ideal).toFixed(2)}x; ${(idealItems / 1000).toFixed(2)} s (one job per item) -> ${(wall / idealItems).toFixed(2)}x`,
      `  429s ${counters.throttled} = ${(counters.throttled / counters.creates).toFixed(3)} per job`,
      `  RSS before ${(rssBefore / 2 ** 20).toFixed(0)} MB, peak so far ${(peakRssBytes() / 2 ** 20).toFixed(0)} MB`,
    ].join('\n'),
  );
}

try {
  if (process.env.BATCH_SCENARIO !== 'bulk') await scenario('issue-40', 40, 300, 6, 0.1);
  if (process.env.BATCH_SCENARIO !== 'issue') await scenario(`bulk-${ITEMS}`, ITEMS, PROCESSING_MS, LIMIT, 0);
} finally {
  await rm(work, { recursive: true, force: true });
  await built.remove();
}
