/**
 * Child of test/bullmq/bullmq-workers.test.ts and bench/distributed.ts: one BullMQ worker host making videos against the
 * parent's mock. Prints `ready` once connected, then `stored <key> <videoId>` each time a create's answer has been
 * stored in its job, so the parent can map every video job to its item and kill a worker that holds one.
 * Arguments: redisSocket queueName baseURL apiKey outputDir [lockDuration stalledInterval concurrency createRate]:
 * a createRate as `2/6` goes to the client and to `workerOptions` (BullMQ's limiter), `-` or none means
 * `workerDefaults`. SIGTERM closes it, printing `usage <cpuMs> <peakRssBytes>` first. With WARM_UP set
 * (test/helpers/warm-up.ts), it makes one video elsewhere before it takes jobs.
 */
import { basename } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { peakRssBytes } from '../../bench/support/peak-rss.js';
import { createVideoProcessor, type GeneratingClient, workerDefaults, workerOptions } from '../../src/bullmq/index.js';
import { AvatarVideo } from '../../src/index.js';
import { warmUp } from './warm-up.js';

await warmUp();
const args = process.argv.slice(2) as string[];
const [socket, queueName, baseURL, apiKey, outputDir, lockDuration, stalledInterval, concurrency, rateText] = args;
const connection = { path: socket as string };
const [limit, windowSeconds] = (rateText ?? '-').split('/').map(Number);
const createRate = rateText && rateText !== '-' ? { limit: limit as number, windowSeconds: windowSeconds as number } : undefined;
const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off', createRate });
const settings = createRate ? workerOptions({ createRate }) : workerDefaults;
const queue = new Queue(queueName as string, { connection });
const reporting: GeneratingClient = {
  videos: {
    generate: (params, options) =>
      client.videos.generate(params, {
        ...options,
        onCreated: async (video) => {
          await options.onCreated?.(video);
          process.stdout.write(`stored ${basename(options.output, '.mp4')} ${video.id}\n`);
        },
      }),
  },
};
const worker = new Worker(queueName as string, createVideoProcessor(reporting, { outputDir: outputDir as string, queue }), {
  ...settings,
  lockDuration: Number(lockDuration ?? workerDefaults.lockDuration),
  stalledInterval: Number(stalledInterval ?? workerDefaults.stalledInterval),
  concurrency: Number(concurrency ?? workerDefaults.concurrency),
  connection,
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(`usage ${(user + system) / 1000} ${peakRssBytes()}\n`);
  void Promise.all([worker.close(true), queue.close(), client.close()]).then(() => process.exit(0));
});
