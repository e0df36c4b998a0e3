/**
 * avatar-video/bullmq under the service's create rate, 10x faster in time: 3 worker processes (3 clients, as 3 hosts)
 * on one queue on a local redis-server, against a mock that accepts at most 2 creates in any 6 s window and answers
 * the service's 429 body without Retry-After; jobs take 2.5 s. Each run is made with the declared rate
 * (`workerOptions({ createRate })`: BullMQ's global limiter, and the same rate given to each client) and, as the
 * baseline, with `workerDefaults` as before (no limiter that binds; each 429 pauses the queue). Children are compiled
 * like the package and each makes one video on a mock of its own before the clock starts.
 * Prints wall time against the ideal, (ceil(jobs/2) - 1) * 6 + 2.5 s, answers 429, creates, and the workers' CPU time
 * and peak RSS.
 *
 *   npx tsx bench/create-rate-bullmq.ts [jobs=8,12]
 *
 * Targets (issue 36): with the declared rate 0 answers 429 and at most 1.15x ideal.
 */
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { videoJob } from '../src/bullmq/index.js';
import { startMockServer } from '../src/testing/index.js';
import { startWorkerHost, stopWorkerHosts, type WorkerHost } from '../test/helpers/bullmq-host.js';
import { wav } from '../test/helpers/media.js';
import { findRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../test/helpers/redis-server.js';
import { compile } from './support/build.js';

const JOB_COUNTS = (process.argv[2] ?? '8,12').split(',').map(Number);
const RATE = { limit: 2, windowSeconds: 6 };
const PROCESSING_MS = 2_500;
const WORKERS = 3;
const IMAGE = fileURLToPath(new URL('../test/fixtures/mock/portrait.png', import.meta.url));
const MB = 1 << 20;

if (findRedisServer() === undefined) {
  console.log(`skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);
  process.exit(0);
}

const built = await compile(['test/helpers/bullmq-worker.ts']);
const workerChild = built.paths[0] as string;
const work = await mkdtemp(join(tmpdir(), 'bench-create-rate-bullmq-'));
const audio = join(work, 'speech.wav');
await writeFile(audio, wav(1));
// Every child inherits it: test/helpers/warm-up.ts.
const warmUpMock = await startMockServer({ processingMs: 100 });
process.env.WARM_UP = JSON.stringify({ baseURL: warmUpMock.baseURL, apiKey: warmUpMock.apiKey, audio, image: IMAGE });

const ideal = (jobs: number) => (Math.ceil(jobs / RATE.limit) - 1) * RATE.windowSeconds + PROCESSING_MS / 1000;

interface Row {
  name: string;
  jobs: number;
  wallSeconds: number;
  throttled: number;
  creates: number;
  cpuMs: number;
  peakRssMB: number;
}

/** One run: `jobs` items on `WORKERS` worker hosts, each given `rateText` (`2/6`, or `-` for workerDefaults). */
async function runWorkers(name: string, jobs: number, rateText: string): Promise<Row> {
  const dir = join(work, `${name}-${jobs}`.replace(/\W+/g, '-'));
  const out = join(dir, 'out');
  await mkdir(out, { recursive: true });
  const redis = await startRedisServer(dir);
  const mock = await startMockServer({ processingMs: PROCESSING_MS, createRate: RATE });
  const args = [redis.path, 'videos', mock.baseURL, mock.apiKey, out, '30000', '30000', '10', rateText];
  const hosts: WorkerHost[] = await Promise.all(Array.from({ length: WORKERS }, () => startWorkerHost([workerChild], args, () => {})));
  const queue = new Queue('videos', { connection: { path: redis.path } });
  try {
    const items = Array.from({ length: jobs }, (_, i) => ({ key: `item-${i}`, audio_reference: audio, image_reference: IMAGE }));
    const started = performance.now();
    await queue.addBulk(items.map((item) => videoJob(item)));
    let counts: Record<string, number>;
    do {
      await sleep(20);
      counts = await queue.getJobCounts('completed', 'failed');
    } while ((counts.completed ?? 0) + (counts.failed ?? 0) < jobs);
    const wallSeconds = (performance.now() - started) / 1000;
    if (counts.failed) console.log(`  ${name}, ${jobs} jobs: ${counts.failed} queue jobs FAILED`);
    const { throttledCreates: throttled, creates } = mock;
    // Each host prints its usage as it closes (on SIGTERM), before its stdout ends.
    const ended = hosts.map((host) => once(host.child.stdout, 'end'));
    await stopWorkerHosts(hosts);
    await Promise.all(ended);
    const cpuMs = hosts.reduce((sum, host) => sum + (host.usage?.cpuMs ?? Number.NaN), 0);
    const peakRssMB = Math.max(...hosts.map((host) => host.usage?.peakRssBytes ?? Number.NaN)) / MB;
    return { name, jobs, wallSeconds, throttled, creates, cpuMs, peakRssMB };
  } finally {
    await queue.close();
    await stopWorkerHosts(hosts);
    await mock.close();
    await redis.close();
  }
}

function print(rows: Row[]) {
  const line = (cells: string[]) => console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(40) : cell.padStart(9))).join(' '));
  line(['run', 'jobs', 'wall s', 'ideal s', 'x ideal', '429s', 'POSTs', 'CPU ms', 'RSS MB', 'target']);
  for (const row of rows) {
    const ratio = row.wallSeconds / ideal(row.jobs);
    const declared = row.name.startsWith('declared');
    const target = declared ? (row.throttled === 0 && ratio <= 1.15 ? 'met' : 'MISSED') : 'baseline';
    line([
      row.name,
      String(row.jobs),
      row.wallSeconds.toFixed(2),
      ideal(row.jobs).toFixed(2),
      `${ratio.toFixed(2)}x`,
      String(row.throttled),
      String(row.creates + row.throttled),
      row.cpuMs.toFixed(0),
      row.peakRssMB.toFixed(1),
      target,
    ]);
  }
  console.log(
    'CPU ms: the 3 workers together, over their lives (start and warm-up included); RSS MB: the largest worker. Target with the declared rate: 0 answers 429, <= 1.15x ideal.',
  );
}

try {
  const rows: Row[] = [];
  for (const jobs of JOB_COUNTS) {
    rows.push(await runWorkers('declared: workerOptions({ createRate })', jobs, `${RATE.limit}/${RATE.windowSeconds}`));
    rows.push(await runWorkers('baseline: workerDefaults', jobs, '-'));
  }
  print(rows);
} finally {
  await warmUpMock.close();
  await rm(work, { recursive: true, force: true });
  await built.remove();
}
