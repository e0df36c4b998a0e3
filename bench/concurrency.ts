/**
 * One client waits on many jobs at once (default 1,000) against the loopback mock: wall time against
 * the ideal (the jobs' processing time) and against a single wait in the same run, polls per job,
 * pooled connections, and the heap the waits held at their peak and kept afterwards.
 * Every tenth job fails and every tenth is cancelled, so the three endings run side by side.
 *
 *   npx tsx bench/concurrency.ts [jobs=1000] [processingMs=3000]
 *
 * Figures seen on a 2-core machine shared with other work: see the CHANGELOG entry that moved this here.
 */
import { subscribe } from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import type * as SDK from '../src/index.js';
import { startMockServer } from '../src/testing/index.js';
import { compile } from './support/build.js';

const JOBS = Number(process.argv[2] ?? 1_000);
const PROCESSING_MS = Number(process.argv[3] ?? 3_000);
// The mock answers several hundred polls a second in this process; these values give each job a handful.
const WAIT = { pollInterval: 250, maxPollInterval: 1_000, timeout: 60_000 };
const WARMUP = 200; // enough at once to open every pooled connection before measuring
const MB = 1 << 20;

// The SDK as built for users, not as tsx transforms it on the fly.
const built = await compile(['src/index.ts']);
const { AvatarVideo, VideoCancelledError, VideoFailedError } = (await import(pathToFileURL(built.paths[0] as string).href)) as typeof SDK;

// A full GC before each heap reading, so the numbers are live memory, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

let opened = 0;
subscribe('undici:client:connected', () => {
  opened += 1;
});
/** Per-origin pool statistics of the client's undici Agent. */
const pools = () => Object.values((agent as unknown as { stats: Record<string, { connected: number }> }).stats);

// pollAfterMs null: this measures the SDK's own scheduling, not the mock's hint.
const server = await startMockServer({ processingMs: PROCESSING_MS, pollAfterMs: null });
// The bench's own Agent, as the client's would be, so its pool statistics can be read.
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off', dispatcher: agent });

function createJobs(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 10 === 1) server.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Slow down' } });
    else if (i % 10 === 2) server.enqueueOutcome({ status: 'CANCELLED' });
    else server.enqueueOutcome({ status: 'COMPLETE' });
    return server.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' }).id;
  });
}

/** One wait per job, all at once; how they ended and how long it took. */
async function waitOnAll(ids: string[]) {
  const started = performance.now();
  const results = await Promise.allSettled(ids.map((id) => client.videos.waitForCompletion(id, WAIT)));
  const elapsed = performance.now() - started;
  const ended = (test: (reason: unknown) => boolean) => results.filter((r) => r.status === 'rejected' && test(r.reason)).length;
  return {
    elapsed,
    completed: results.filter((r) => r.status === 'fulfilled').length,
    failed: ended((reason) => reason instanceof VideoFailedError),
    cancelled: ended((reason) => reason instanceof VideoCancelledError),
  };
}

try {
  // Warm up first, so code compiled on first use and the pooled sockets do not count as retained.
  await waitOnAll(createJobs(WARMUP));
  const single = await waitOnAll(createJobs(1)); // the baseline: one wait alone, same settings
  const ids = createJobs(JOBS);
  const firstRequest = server.requests.length;
  opened = 0;
  const before = liveHeap();
  let peak = 0;
  let mostConnected = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    for (const pool of pools()) mostConnected = Math.max(mostConnected, pool.connected);
  }, 25);
  const outcome = await waitOnAll(ids);
  clearInterval(sampler);

  const polls = new Map<string, number>();
  for (const request of server.requests.slice(firstRequest)) polls.set(request.path, (polls.get(request.path) ?? 0) + 1);
  const requests = server.requests.length - firstRequest;
  server.requests.splice(0); // the mock's own log is not the client's memory
  const after = liveHeap();

  const ms = (value: number) => `${Math.round(value)} ms`;
  console.log(`${JOBS} waits at once, jobs of ${PROCESSING_MS} ms, pollInterval ${WAIT.pollInterval} ms:`);
  console.log(`  endings      ${outcome.completed} COMPLETE, ${outcome.failed} FAILED, ${outcome.cancelled} CANCELLED`);
  console.log(`  wall time    ${ms(outcome.elapsed)}`);
  console.log(
    `    vs ideal   ${(outcome.elapsed / PROCESSING_MS).toFixed(2)}x the processing time (a wait ends at the first poll after it)`,
  );
  console.log(`    vs 1 wait  ${(outcome.elapsed / single.elapsed).toFixed(2)}x one wait alone (${ms(single.elapsed)})`);
  console.log(`  polls        ${requests} (${(requests / JOBS).toFixed(1)} per job, at most ${Math.max(...polls.values())})`);
  console.log(`  connections  ${mostConnected} at most at once (pool limit 64), ${opened} opened`);
  console.log(
    `  heap         ${(before / MB).toFixed(1)} MB before, peak ${(peak / MB).toFixed(1)} MB (+${((peak - before) / MB).toFixed(1)} MB)`,
  );
  console.log(
    `  retained     ${((after - before) / MB).toFixed(2)} MB after (${((after - before) / JOBS / 1024).toFixed(1)} KB per wait; includes the mock's job records)`,
  );
} finally {
  await client.close();
  await agent.close();
  await server.close();
  await built.remove();
}
