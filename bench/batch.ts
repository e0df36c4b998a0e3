/**
 * `videos.generateBatch` against the mock with a concurrency limit it is not told. The mock and the batch each
 * run in a process of their own (the batch compiled like the package); this one only drives and prints:
 * wall time against the ideal (the sum of the jobs' durations divided by the limit), 429s per job, and the
 * batch process's peak RSS.
 *
 *   npx tsx bench/batch.ts [items=1000] [processingMs=200] [limit=6]
 *   BATCH_SCENARIO=issue|bulk|memory to run one scenario only
 *
 * Scenarios: the issue's 40 items (limit 6, 10% of jobs FAILED with a rate-limit code, 300 ms jobs); the bulk
 * run of the arguments; and 10,000 items of 20 ms jobs under a limit of 48, for memory.
 * Targets: wall <= 1.6x ideal, 429s <= 1 per 4 jobs, 10,000 items well under 200 MB.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wav } from '../test/helpers/media.js';
import { compile } from './support/build.js';
import { spawnMock } from './support/mock-child.js';
import { run } from './support/spawn.js';

const ITEMS = Number(process.argv[2] ?? 1_000);
const PROCESSING_MS = Number(process.argv[3] ?? 200);
const LIMIT = Number(process.argv[4] ?? 6);
const ONLY = process.env.BATCH_SCENARIO;
const IMAGE = fileURLToPath(new URL('../test/fixtures/mock/portrait.png', import.meta.url));
const MB = 2 ** 20;

const built = await compile(['bench/batch-child.ts']);
const work = await mkdtemp(join(tmpdir(), 'bench-batch-'));
const audio = join(work, 'speech.wav');
await writeFile(audio, wav(1));

interface ChildResult {
  wallMs: number;
  baseRss: number;
  peakRss: number;
  completed: number;
  failed: number;
}

async function scenario(name: string, items: number, processingMs: number, limit: number, failureRate: number) {
  const mock = await spawnMock(processingMs, limit, failureRate);
  const { baseURL, apiKey } = mock;
  const { stdout } = await run(process.execPath, [
    built.paths[0] as string,
    baseURL,
    apiKey,
    join(work, name),
    String(items),
    String(processingMs),
    audio,
    IMAGE,
  ]);
  const batch = JSON.parse(stdout) as ChildResult;
  const counters = await mock.stats();
  await mock.stop();
  const ideal = (counters.creates * processingMs) / limit;
  const idealItems = (items * processingMs) / limit;
  console.log(
    [
      `${name}: ${items} items, ${processingMs} ms jobs, service limit ${limit}, ${failureRate * 100}% rate-limited jobs`,
      `  completed ${batch.completed}, failed ${batch.failed}; jobs ${counters.creates} (${counters.complete} COMPLETE)`,
      `  wall ${(batch.wallMs / 1000).toFixed(2)} s; ideal ${(ideal / 1000).toFixed(2)} s (all jobs) -> ${(batch.wallMs / ideal).toFixed(2)}x; ${(idealItems / 1000).toFixed(2)} s (one job per item) -> ${(batch.wallMs / idealItems).toFixed(2)}x`,
      `  429s ${counters.throttled} = ${(counters.throttled / counters.creates).toFixed(3)} per job`,
      `  batch process RSS: ${(batch.baseRss / MB).toFixed(0)} MB at start, peak ${(batch.peakRss / MB).toFixed(0)} MB`,
    ].join('\n'),
  );
}

try {
  if (!ONLY || ONLY === 'issue') await scenario('issue-40', 40, 300, 6, 0.1);
  if (!ONLY || ONLY === 'bulk') await scenario(`bulk-${ITEMS}`, ITEMS, PROCESSING_MS, LIMIT, 0);
  if (!ONLY || ONLY === 'memory') {
    await scenario('memory-10000', 10_000, 20, 48, 0);
    console.log('  (memory scenario: its wall time is per-item overhead, not a target; RSS is the figure)');
  }
} finally {
  await rm(work, { recursive: true, force: true });
  await built.remove();
}
