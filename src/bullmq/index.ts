/**
 * `avatar-video/bullmq`: make videos on many worker hosts sharing one API key, from a BullMQ queue. BullMQ (and
 * ioredis) are the application's: this module imports nothing of them at run time.
 *
 *   await queue.setGlobalConcurrency(6); // the account's limit on jobs at once
 *   await queue.addBulk(items.map(videoJob));
 *   const createRate = { limit: 2, windowSeconds: 60 }; // the account's creates per window, shared by every host
 *   const client = new AvatarVideo({ createRate });
 *   new Worker(queue.name, createVideoProcessor(client, { outputDir, queue }), { ...workerOptions({ createRate }), connection });
 *
 * An event when a job settles, POSTed to its notify URL from a queue of deliveries, tried again until the receiver
 * answers 2xx (signed as Standard Webhooks say: verify with avatar-video/webhooks' `verifyWebhook`):
 *
 *   const job = videoJob(item, { notifyUrl: 'https://app.example.com/hooks/video' });
 *   await queue.add(job.name, job.data, job.opts);
 *   const deliveryQueue = new Queue('deliveries', { connection });
 *   new Worker(queue.name, createVideoProcessor(client, { outputDir, queue, deliveryQueue }), { ...workerOptions({ createRate }), connection });
 *   new Worker(deliveryQueue.name, createDeliveryProcessor({ secret: 'whsec_...' }), { connection });
 */

export {
  createDeliveryProcessor,
  type DeliveryJobHandle,
  type DeliveryProcessor,
  type DeliveryProcessorOptions,
  type DeliveryResult,
} from './delivery.js';
export { type DeliveryJobData, type DeliveryQueueJob, deliveryJob, deliveryJobId } from './delivery-job.js';
export { QueueRateLimitError, WebhookDeliveryError } from './errors.js';
export { type VideoJobData, type VideoJobItem, type VideoJobOptions, type VideoQueueJob, videoJob } from './job.js';
export type { DeliveryQueue } from './notify.js';
export {
  createVideoProcessor,
  type GeneratingClient,
  type VideoJobHandle,
  type VideoJobResult,
  type VideoProcessor,
  type VideoProcessorOptions,
} from './processor.js';
export {
  createWatchProcessor,
  type PollingClient,
  type WatchJobHandle,
  type WatchJobResult,
  type WatchProcessor,
  type WatchProcessorOptions,
} from './watch.js';
export { type WatchJobData, type WatchQueueJob, watchJob } from './watch-job.js';
export { type VideoWorkerOptions, type VideoWorkerSettings, workerDefaults, workerOptions } from './worker.js';
