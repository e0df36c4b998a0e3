import { type AvatarVideo, InvalidArgumentError } from 'avatar-video';

import type { WorkerOptions } from 'bullmq';
import { CREATE_RATE_EXPECTED, createRateEnvProblem, isCreateRate, parseCreateRate } from '../internal/create-rate.js';

/** The worker options the processor relies on: what `workerDefaults` and `workerOptions` give. */
export type VideoWorkerSettings = Readonly<
  Required<Pick<WorkerOptions, 'concurrency' | 'limiter' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>>
>;

/**
 * Worker options the processor relies on; spread them into the Worker's: `new Worker(name, processor,
 * { ...workerDefaults, connection })`. The queue's global concurrency (`queue.setGlobalConcurrency`) is what caps
 * the jobs of all hosts together; set it to the account's limit. Its limiter paces nothing: for the account's create
 * rate, spread `workerOptions({ createRate })` instead.
 */
export const workerDefaults: VideoWorkerSettings = {
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

export interface VideoWorkerOptions {
  /**
   * The account's create rate, `{ limit: 2, windowSeconds: 60 }` for the service's published 2 a minute per
   * organization: BullMQ's limiter, counted in Redis, then starts at most `limit` jobs a window across every worker
   * of the queue, so the hosts together stay within the rate. Give every worker of the queue the same.
   * @default process.env.AVATAR_VIDEO_CREATE_RATE (`2/60`), else none: the limiter of `workerDefaults`, which paces nothing
   */
  createRate?: AvatarVideo.CreateRate | undefined;
}

/**
 * `workerDefaults` with BullMQ's global rate limiter set to the account's create rate (given, else
 * `AVATAR_VIDEO_CREATE_RATE`, the variable the client reads too): `new Worker(name, processor,
 * { ...workerOptions({ createRate }), connection })`. A 429 still pauses the whole queue (`queue.rateLimit`).
 * @throws InvalidArgumentError for a rate that is not `{ limit, windowSeconds }`, or a variable not in the form `2/60`.
 */
export function workerOptions(options: VideoWorkerOptions = {}): VideoWorkerSettings {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'workerOptions takes { createRate? }');
  const rate = options.createRate ?? rateFromEnv(process.env.AVATAR_VIDEO_CREATE_RATE?.trim() || undefined);
  if (rate === undefined) return workerDefaults;
  if (!isCreateRate(rate)) throw new InvalidArgumentError('createRate', `workerOptions: createRate must be ${CREATE_RATE_EXPECTED}`);
  return { ...workerDefaults, limiter: { max: rate.limit, duration: limiterDuration(rate) } };
}

/**
 * BullMQ's window for `rate`, in ms. Its limiter is a fixed window, not a sliding one: each job's move to active
 * increments a counter in Redis, the first of a window sets it to expire `duration` later, and no job starts while it
 * holds `max` (commands/includes/prepareJobForProcessing.lua, getRateLimitTTL.lua). With jobs waiting, each window's
 * creates go out at its start, so the i-th create of a window follows the i-th of the last by at least `duration`;
 * the service, counting creates in any `windowSeconds`, refuses none if `duration` also covers how much a job's time
 * from start to its create reaching the service varies (reading and uploading the inputs): hence 5% more, at least
 * 250 ms. Jobs added one by one can still land at the end of one window and the start of the next; the 429 that may
 * follow pauses the queue (`queue.rateLimit`) for the wait the client learned, and the client's own gate, given the
 * same rate, holds each host to it.
 */
function limiterDuration(rate: AvatarVideo.CreateRate): number {
  const windowMs = rate.windowSeconds * 1_000;
  return Math.ceil(windowMs + Math.max(250, windowMs * 0.05));
}

function rateFromEnv(text: string | undefined): AvatarVideo.CreateRate | undefined {
  if (text === undefined) return undefined;
  const rate = parseCreateRate(text);
  if (rate === undefined) throw new InvalidArgumentError('createRate', createRateEnvProblem(text));
  return rate;
}
