/**
 * Child of test/bullmq/webhook-deliveries.test.ts: one BullMQ worker of a delivery queue, running
 * `createDeliveryProcessor` (private notify URLs allowed: the test's receiver is on 127.0.0.1). Prints `ready` once
 * connected. Arguments: redisSocket queueName secret lockDuration stalledInterval (a test's throwaway secret).
 * SIGTERM closes it.
 */
import { Worker } from 'bullmq';
import { createDeliveryProcessor } from '../../src/bullmq/index.js';

const [socket, queueName, secret, lockDuration, stalledInterval] = process.argv.slice(2) as string[];
const processor = createDeliveryProcessor({ secret: secret as string, allowPrivateNotifyUrls: true });
const worker = new Worker(queueName as string, processor, {
  connection: { path: socket as string },
  lockDuration: Number(lockDuration),
  stalledInterval: Number(stalledInterval),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker.close(true).then(() => process.exit(0));
});
