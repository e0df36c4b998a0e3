import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { AvatarVideo, VideoCancelledError, VideoFailedError } from '../src/index.js';
import { type MockServer, startMockServer } from '../src/testing/index.js';

const JOBS = 1_000;
// The mock answers several hundred polls a second in this process; these values give each job a handful.
const PROCESSING_MS = 3_000;
const WAIT = { pollInterval: 250, maxPollInterval: 1_000, timeout: 40_000 };
const WARMUP = 200; // enough at once to open every pooled connection before measuring
const MB = 1 << 20;

/** Per-origin pool statistics of the undici Agent given to the client. */
const stats = (agent: Agent) => (agent as unknown as { stats: Record<string, { connected: number }> }).stats;

// A full GC before each heap reading, so the numbers are live memory, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

let connections = 0;
const onConnected = () => {
  connections += 1;
};
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  unsubscribe('undici:client:connected', onConnected);
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Start one wait per job at once; return how they ended (the results themselves go out of scope). */
async function waitOnAll(client: AvatarVideo, ids: string[]) {
  const results = await Promise.allSettled(ids.map((id) => client.videos.waitForCompletion(id, WAIT)));
  const ended = (test: (reason: unknown) => boolean) => results.filter((r) => r.status === 'rejected' && test(r.reason)).length;
  return {
    completed: results.filter((r) => r.status === 'fulfilled' && r.value.status === 'COMPLETE').length,
    failed: ended((reason) => reason instanceof VideoFailedError && reason.isRateLimited),
    cancelled: ended((reason) => reason instanceof VideoCancelledError),
  };
}

it(`one client waits on ${JOBS} jobs at once, sharing the pool, in bounded memory`, async () => {
  const server: MockServer = await startMockServer({ processingMs: PROCESSING_MS });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off', dispatcher: agent });
  closers.push(() => agent.close(), server.close);
  subscribe('undici:client:connected', onConnected);

  // Every tenth job fails and every tenth is cancelled, so all three endings run side by side.
  const createJobs = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      if (i % 10 === 1) server.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Slow down' } });
      else if (i % 10 === 2) server.enqueueOutcome({ status: 'CANCELLED' });
      else server.enqueueOutcome({ status: 'COMPLETE' });
      return server.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' }).id;
    });

  // Warm up first, so code compiled on first use and the pooled sockets do not count as retained.
  await waitOnAll(client, createJobs(WARMUP));
  const ids = createJobs(JOBS);
  const warmupRequests = server.requests.length;
  connections = 0;
  const before = liveHeap();
  let peak = 0;
  let mostConnected = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    for (const pool of Object.values(stats(agent))) mostConnected = Math.max(mostConnected, pool.connected);
  }, 25);
  const started = performance.now();
  const outcome = await waitOnAll(client, ids);
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  expect(outcome).toEqual({ completed: 800, failed: 100, cancelled: 100 });

  // Polls share the client's keep-alive pool (64 connections per origin) instead of a socket each;
  // a few more may be opened over time when the server closes idle ones.
  expect(mostConnected).toBeGreaterThan(0);
  expect(mostConnected).toBeLessThanOrEqual(64);
  expect(connections).toBeLessThan(2 * 64);

  // Backoff keeps the request count sane: no job polled more often than pollInterval less jitter allows.
  const polls = new Map<string, number>();
  for (const request of server.requests.slice(warmupRequests)) polls.set(request.path, (polls.get(request.path) ?? 0) + 1);
  const most = Math.max(...polls.values());
  const requests = server.requests.length - warmupRequests;
  expect(polls.size).toBe(JOBS);
  expect(most).toBeGreaterThanOrEqual(3);
  expect(most).toBeLessThanOrEqual(Math.ceil(elapsed / (WAIT.pollInterval * 0.75)) + 1);

  // Memory: what the waits held at their peak, and nothing retained once they ended.
  server.requests.splice(0); // the mock's own log is not the client's memory
  const after = liveHeap();
  console.info(
    `${JOBS} waits: ${Math.round(elapsed)} ms, ${requests} polls (max ${most} per job), ${mostConnected} connections at most (${connections} opened), ` +
      `heap ${(before / MB).toFixed(1)} MB before, peak ${(peak / MB).toFixed(1)} MB, ${(after / MB).toFixed(1)} MB after`,
  );
  expect(peak - before).toBeLessThan(150 * MB);
  // Under 8 KB per finished wait; the mock's own job records are part of what stays.
  expect(after - before).toBeLessThan(8 * MB);
}, 90_000);
