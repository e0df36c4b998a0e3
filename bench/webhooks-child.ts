/**
 * Child of bench/webhooks.ts: one host of one way to learn that a video job settled, against the parent's mock,
 * receiver and redis-server. Roles:
 *   watch  a BullMQ worker of watches (`createWatchProcessor`) and one of deliveries (`createDeliveryProcessor`)
 *   jobs   a BullMQ worker of video jobs (`createVideoProcessor` with a `deliveryQueue`) and one of deliveries
 *   poll5  the loop a user writes by hand: each `<videoId> <notifyUrl>` line read on stdin is retrieved every 5 s until
 *          it settles, and its event then signed as the deliveries sign it and POSTed with fetch
 * Arguments: role redisSocket queueName deliveryQueueName outputDir concurrency (poll5 reads none of the last five but
 * the role). The mock's address and key and the signing secret come in BENCH_BASE_URL, BENCH_API_KEY and
 * BENCH_SECRET, kept off the command line. Prints `ready` once connected; SIGTERM prints `usage <cpuMs> <peakRssBytes>`
 * (CPU time since `ready`, peak resident memory of the whole life) and exits.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeliveryProcessor, createVideoProcessor, createWatchProcessor, workerDefaults } from '../src/bullmq/index.js';
import { AvatarVideo } from '../src/index.js';
import { eventTypeOf, videoEvent } from '../src/webhooks/event.js';
import { signEvent } from '../src/webhooks/sign.js';
import { peakRssBytes } from './support/peak-rss.js';

const FIXED_POLL_MS = 5_000;
const [role, socket, queueName, deliveryQueueName, outputDir, concurrency] = process.argv.slice(2) as string[];
const secret = process.env.BENCH_SECRET as string;
const client = new AvatarVideo({ baseURL: process.env.BENCH_BASE_URL, apiKey: process.env.BENCH_API_KEY, logLevel: 'off' });
const closers: Array<() => Promise<unknown>> = [() => client.close()];

/** The BullMQ roles: the role's worker and a delivery worker, both on the parent's redis-server. */
async function startWorkers(): Promise<void> {
  // Imported here: the hand-written baseline loads no BullMQ, as a user's loop would not.
  const { Queue, Worker } = await import('bullmq');
  const connection = { path: socket as string };
  const deliveryQueue = new Queue(deliveryQueueName as string, { connection });
  const jobs = new Queue(queueName as string, { connection });
  const width = Number(concurrency);
  const worker =
    role === 'watch'
      ? new Worker(queueName as string, createWatchProcessor(client, { deliveryQueue }), { connection, concurrency: width })
      : new Worker(
          queueName as string,
          createVideoProcessor(client, {
            outputDir: outputDir as string,
            queue: new Queue(queueName as string, { connection }),
            deliveryQueue,
          }),
          { ...workerDefaults, connection, concurrency: width },
        );
  const deliveries = new Worker(deliveryQueueName as string, createDeliveryProcessor({ secret, allowPrivateNotifyUrls: true }), {
    connection,
    concurrency: 10,
  });
  closers.push(
    () => worker.close(true),
    () => deliveries.close(true),
    () => deliveryQueue.close(),
    () => jobs.close(),
  );
  await Promise.all([worker.waitUntilReady(), deliveries.waitUntilReady()]);
}

/** The hand-written baseline for one video: a retrieve every 5 s until it settles, then its event, tried until a 2xx. */
async function pollEvery5s(videoId: string, notifyUrl: string): Promise<void> {
  for (;;) {
    const video = await client.videos.retrieve(videoId).catch(() => undefined);
    if (video !== undefined && eventTypeOf(video.status) !== undefined) {
      const event = await videoEvent(video);
      for (let tries = 0; tries < 10; tries++) {
        const { body, headers } = signEvent(event, secret);
        const answer = await fetch(notifyUrl, { method: 'POST', headers: { ...headers }, body, redirect: 'manual' }).catch(() => undefined);
        await answer?.arrayBuffer();
        if (answer?.ok) return;
        await sleep(FIXED_POLL_MS);
      }
      return;
    }
    await sleep(FIXED_POLL_MS);
  }
}

if (role === 'poll5') {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [videoId, notifyUrl] = line.split(' ') as [string, string];
    void pollEvery5s(videoId, notifyUrl);
  });
} else {
  await startWorkers();
}
const atReady = process.cpuUsage();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage(atReady);
  process.stdout.write(`usage ${(user + system) / 1000} ${peakRssBytes()}\n`);
  void Promise.all(closers.map((close) => close())).then(() => process.exit(0));
});
