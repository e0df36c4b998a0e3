/**
 * 200 watches shared by 3 worker processes (test/helpers/bullmq-watch-worker.ts) on one real redis-server (started
 * here), against one mock whose jobs end at different times: every watch ends with exactly one delivery, of its own
 * video, `video.completed`; none fails; each video is polled a handful of times (the count is printed), one poll a
 * run wherever the run is.
 *
 * Without redis-server on PATH it is skipped, saying how to install it; under CI=true it fails instead.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { expect, it } from 'vitest';
import type { DeliveryJobData } from '../../src/bullmq/delivery-job.js';
import { watchJob } from '../../src/bullmq/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { closeThroughRedis, startWorkerHost, type WorkerHost } from '../helpers/bullmq-host.js';
import { useCleanup } from '../helpers/fixture.js';
import { findRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../helpers/redis-server.js';

const WATCHES = 200;
const WORKERS = 3;
const WATCH_WORKER = ['--import', 'tsx', fileURLToPath(new URL('../helpers/bullmq-watch-worker.ts', import.meta.url))];
const FIELDS = { model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' } as const;

const closers = useCleanup();
const runnable = findRedisServer() !== undefined || process.env.CI === 'true';
if (!runnable) console.warn(`test/bullmq/watch-workers.test.ts skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);
const NAME = `${WATCHES} watches on ${WORKERS} worker processes: one video.completed delivery each, a few polls a video`;

(runnable ? it : it.skip)(
  runnable ? NAME : `${NAME} (skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT})`,
  { timeout: 240_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'avatar-watch-workers-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const hosts: WorkerHost[] = [];
    const queues: Queue[] = [];
    const redis = await startRedisServer(dir);
    closers.push(closeThroughRedis(hosts, queues, redis));
    // Jobs of 8 to 16 s (long enough that the first polls, all at once on a loaded machine, find them running), no
    // poll hint: the poll schedule of each watch decides when it looks again.
    const mock = await startMockServer({ processingMs: (index) => 8_000 + (index % 9) * 1_000, pollAfterMs: null });
    closers.push(() => mock.close());
    const connection = { path: redis.path };
    const watches = new Queue('watches', { connection });
    const deliveries = new Queue<DeliveryJobData>('deliveries', { connection });
    queues.push(watches, deliveries);

    const args = [redis.path, 'watches', 'deliveries', mock.baseURL, mock.apiKey, '500', '2000', '50'];
    hosts.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startWorkerHost(WATCH_WORKER, args, () => {})))));

    const ids = Array.from({ length: WATCHES }, () => mock.state.createVideo(FIELDS).id);
    await watches.addBulk(ids.map((id, i) => watchJob(id, { notifyUrl: `https://receiver.example/hooks/${i % 4}` })));
    for (;;) {
      const counts = await watches.getJobCounts('completed', 'failed');
      if ((counts.completed ?? 0) + (counts.failed ?? 0) === WATCHES) break;
      if (hosts.some((host) => host.child.exitCode !== null)) throw new Error(`a worker exited:\n${hosts.map((h) => h.stderr).join('\n')}`);
      await sleep(200);
    }

    expect(await watches.getJobCounts('completed', 'failed')).toEqual({ completed: WATCHES, failed: 0 });
    const delivered = await deliveries.getJobs(['waiting']);
    expect(delivered).toHaveLength(WATCHES);
    expect(delivered.map((job) => job.data.event.data.id).sort()).toEqual([...ids].sort());
    expect(new Set(delivered.map((job) => job.data.event.type))).toEqual(new Set(['video.completed']));
    for (const job of delivered) {
      const i = ids.indexOf(job.data.event.data.id);
      expect(job.data.notifyUrl).toBe(`https://receiver.example/hooks/${i % 4}`);
      expect(job.data.event.data.status).toBe('COMPLETE');
    }
    // Polls a video: each watch polled on its own schedule, wherever it ran.
    const polls = ids
      .map((id) => mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${id}`).length)
      .sort((a, b) => a - b);
    const [fewest, median, most] = [polls[0], polls[WATCHES >> 1], polls.at(-1)] as number[];
    console.info(`watch-workers: polls per video min ${fewest}, median ${median}, max ${most}, total ${polls.reduce((a, b) => a + b, 0)}`);
    // Every video was read, and none polled without bound; how many polls a job takes depends on the machine's load
    // (test/bullmq/watch.test.ts shows the delayed set between polls).
    expect(fewest).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(40);
  },
);
