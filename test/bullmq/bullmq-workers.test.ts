/**
 * avatar-video/bullmq on a real redis-server (started here) with three worker processes sharing one mock capped at 3
 * jobs at once, about 10% of jobs FAILED for a rate limit, and the queue's global concurrency set to that cap. One
 * worker is SIGKILLed right after it stored its first video job: once its lock has run out (2 s here, 30 s by default),
 * that job is taken up by another worker, which waits on it instead of paying for another. No video is paid for
 * twice, and none is refused.
 *
 * Without redis-server on PATH it is skipped, saying how to install it; under CI=true it fails instead.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { expect, it } from 'vitest';
import { videoJob } from '../../src/bullmq/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { closeThroughRedis, startWorkerHost, WORKER_FROM_SOURCES, type WorkerHost } from '../helpers/bullmq-host.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';
import { findRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../helpers/redis-server.js';

const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const ITEMS = 24;
const CAP = 3;
const WORKERS = 3;

const closers = useCleanup();
const runnable = findRedisServer() !== undefined || process.env.CI === 'true';
// The default reporter names no skipped test: say it here.
if (!runnable) console.warn(`test/bullmq-workers.test.ts skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);
const NAME = `${ITEMS} items on ${WORKERS} workers, one SIGKILLed: every file whole, no video paid twice, no 429`;

(runnable ? it : it.skip)(
  runnable ? NAME : `${NAME} (skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT})`,
  { timeout: 180_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'avatar-bullmq-workers-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const hosts: WorkerHost[] = [];
    const queues: Queue[] = [];
    const redis = await startRedisServer(dir);
    closers.push(closeThroughRedis(hosts, queues, redis));
    const mock = await startMockServer({ processingMs: 300, concurrencyLimit: CAP, rateLimitFailureRate: 0.1, seed: 19 });
    closers.push(() => mock.close());
    // The first job completes: it is the killed worker's, so its file must be that very job's video.
    mock.enqueueOutcome({ status: 'COMPLETE' });
    const out = join(dir, 'out');
    await mkdir(out);
    const audio = join(dir, 'speech.wav');
    await writeFile(audio, wav(1));

    const keyOf = new Map<string, string>();
    let killed: { host: WorkerHost; key: string; id: string } | undefined;
    let onKilled: () => void;
    const killing = new Promise<void>((resolve) => {
      onKilled = resolve;
    });
    const onStored = (host: WorkerHost, key: string, id: string) => {
      keyOf.set(id, key);
      if (killed) return;
      // Right after its first create was stored: it runs one job at a time, so it holds no other.
      killed = { host, key, id };
      host.child.kill('SIGKILL');
      onKilled();
    };
    const args = (concurrency: number) => [redis.path, 'videos', mock.baseURL, mock.apiKey, out, '2000', '1000', String(concurrency)];
    // The worker to kill starts alone, so it takes the first job; the others run 2 jobs each, 4 in all: more than the
    // cap, which only the queue's global concurrency keeps them to.
    hosts.push(await startWorkerHost(WORKER_FROM_SOURCES, args(1), onStored));

    const queue = new Queue('videos', { connection: { path: redis.path } });
    queues.push(queue);
    await queue.setGlobalConcurrency(CAP);
    const items = Array.from({ length: ITEMS }, (_, i) => ({ key: `item-${i}`, audio_reference: audio, image_reference: IMAGE }));
    await queue.addBulk(items.map((item) => videoJob(item)));
    await killing;
    hosts.push(...(await Promise.all(Array.from({ length: WORKERS - 1 }, () => startWorkerHost(WORKER_FROM_SOURCES, args(2), onStored)))));
    for (;;) {
      const counts = await queue.getJobCounts('completed', 'failed');
      if ((counts.completed ?? 0) + (counts.failed ?? 0) === ITEMS) break;
      await sleep(100);
    }

    expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: ITEMS, failed: 0 });
    await killed?.host.exited;
    expect(killed?.host.child.signalCode).toBe('SIGKILL');
    // Every file whole, each the video of a job made for its own key.
    expect((await readdir(out)).sort()).toEqual(items.map((item) => `${item.key}.mp4`).sort());
    for (const { key } of items) {
      const tags = Object.values((await summarizeMp4(join(out, `${key}.mp4`))).tags).join(' ');
      const id = /job=(vid_[0-9a-f]+)/.exec(tags)?.[1] as string;
      expect(keyOf.get(id)).toBe(key);
    }
    // Every job the mock made was stored in its queue job, and paid for once: one per item, plus those FAILED for a rate limit.
    const videos = mock.state.listVideos();
    expect(videos.map((video) => keyOf.has(video.id))).not.toContain(false);
    const rateLimited = videos.filter((video) => video.status === 'FAILED' && video.error?.code === 'rate_limit_exceeded');
    expect(mock.creates).toBe(ITEMS + rateLimited.length);
    const completeKeys = videos.filter((video) => video.status === 'COMPLETE').map((video) => keyOf.get(video.id));
    expect(completeKeys.sort()).toEqual(items.map((item) => item.key).sort());
    // The killed worker's job was taken up by another, which waited on its video job rather than making another.
    const killedKey = killed?.key as string;
    expect(videos.filter((video) => keyOf.get(video.id) === killedKey).map((video) => video.id)).toEqual([killed?.id]);
    expect(Object.values((await summarizeMp4(join(out, `${killedKey}.mp4`))).tags).join(' ')).toContain(`job=${killed?.id}`);
    expect(mock.throttledCreates).toBe(0);
  },
);
