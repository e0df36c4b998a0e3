/**
 * `avatar-video/bullmq`: make videos on many worker hosts sharing one API key, from a BullMQ queue. BullMQ (and
 * ioredis) are the application's: this module imports nothing of them at run time.
 *
 *   await queue.setGlobalConcurrency(6); // the account's limit on jobs at once
 *   await queue.addBulk(items.map(videoJob));
 *   new Worker(queue.name, createVideoProcessor(client, { outputDir, queue }), { ...workerDefaults, connection });
 */
export { QueueRateLimitError } from './errors.js';
export { type VideoJobData, type VideoJobItem, type VideoQueueJob, videoJob } from './job.js';
export {
  createVideoProcessor,
  type GeneratingClient,
  type VideoJobHandle,
  type VideoJobResult,
  type VideoProcessor,
  type VideoProcessorOptions,
} from './processor.js';
export { workerDefaults } from './worker.js';
