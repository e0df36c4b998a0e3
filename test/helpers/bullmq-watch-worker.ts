/**
 * Child of test/bullmq/watch-workers.test.ts: one BullMQ worker host of watches against the parent's mock, adding
 * deliveries to the parent's delivery queue. Prints `ready` once connected; SIGTERM closes it.
 * Arguments: redisSocket watchQueue deliveryQueue baseURL apiKey pollInterval maxPollInterval concurrency.
 */
import { Queue, Worker } from 'bullmq';
import { createWatchProcessor } from '../../src/bullmq/index.js';
import { AvatarVideo } from '../../src/index.js';

const [socket, watchQueue, deliveryQueueName, baseURL, apiKey, pollInterval, maxPollInterval, concurrency] = process.argv.slice(2);
const connection = { path: socket as string };
const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off' });
const deliveryQueue = new Queue(deliveryQueueName as string, { connection });
const processor = createWatchProcessor(client, {
  deliveryQueue,
  pollInterval: Number(pollInterval),
  maxPollInterval: Number(maxPollInterval),
});
const worker = new Worker(watchQueue as string, processor, { connection, concurrency: Number(concurrency) });
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void Promise.all([worker.close(), deliveryQueue.close(), client.close()]).then(() => process.exit(0));
});
