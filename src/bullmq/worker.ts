import type { WorkerOptions } from 'bullmq';

/**
 * Worker options the processor relies on; spread them into the Worker's: `new Worker(name, processor,
 * { ...workerDefaults, connection })`. The queue's global concurrency (`queue.setGlobalConcurrency`) is what caps
 * the jobs of all hosts together; set it to the account's limit.
 */
export const workerDefaults: Readonly<
  Required<Pick<WorkerOptions, 'concurrency' | 'limiter' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>>
> = {
  /** Jobs this process runs at once. A job mostly waits on the service, so one process can run many. */
  concurrency: 10,
  /**
   * A limit that never binds on its own: BullMQ applies a manual `queue.rateLimit` (the processor's answer to a
   * 429) only on workers that have a limiter.
   */
  limiter: { max: Number.MAX_SAFE_INTEGER, duration: 1_000 },
  /** BullMQ's default (30 s): a live worker renews its lock, a dead one's jobs are taken up about this long after it died. */
  lockDuration: 30_000,
  /** BullMQ's default (30 s): how often workers look for jobs whose worker died. */
  stalledInterval: 30_000,
  /**
   * Times a job may be taken up again after its worker died before it fails (BullMQ's default is 1). Taking a job up
   * again costs nothing: the processor waits on the video job it stored rather than creating one.
   */
  maxStalledCount: 3,
};
