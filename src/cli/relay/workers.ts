/**
 * The relay's BullMQ side: the watch and delivery queues on the one Redis, a worker for each, and what they say on
 * the log. Many relays (and Node apps running the same processors) may share the queues: Redis spreads the jobs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Queue, Worker } from 'bullmq';
import type { AvatarVideo } from '../../index.js';
import { UsageError } from '../usage-error.js';
import type { BullMQ } from './peers.js';
import { createDeliveryProcessor, createWatchProcessor } from './pieces.js';
import type { RelaySettings } from './settings.js';

/** Watches polled at once by one relay: each run of a watch is one request, then it waits in Redis, not here. */
export const WATCH_CONCURRENCY = 20;
/** Deliveries sent at once by one relay. */
export const DELIVERY_CONCURRENCY = 10;
/** How long finished watches and deliveries stay readable (`GET /watches/{id}`) and de-duplicate a new POST: 7 days. */
export const KEEP_FINISHED_SECONDS = 7 * 24 * 3_600;
/** How long the start waits for Redis before it gives up, saying where it tried. */
export const REDIS_READY_MS = 15_000;

export interface RelayWorkers {
  watchQueue: Queue;
  deliveryQueue: Queue;
  /**
   * Stop taking jobs and close the connections, waiting up to `graceMs` for the jobs in progress. Resolves false
   * when some were still running then: BullMQ gives each, once its lock runs out, to the next worker of its queue.
   */
  close(graceMs: number): Promise<boolean>;
}

/** What the workers write on the log, one line each; `scrub` takes any secret out of foreign text first. */
export interface RelayLog {
  line(text: string): void;
  scrub(text: string): string;
}

/** Start both queues and workers and wait until Redis answers. @throws UsageError when Redis cannot be reached. */
export async function startRelayWorkers(
  bullmq: BullMQ,
  client: AvatarVideo,
  settings: RelaySettings,
  log: RelayLog,
): Promise<RelayWorkers> {
  // Its secret was checked with the settings (secretProblem), so this throws nothing the user can fix.
  const deliver = createDeliveryProcessor({ secret: settings.secret, allowPrivateNotifyUrls: settings.allowPrivateNotifyUrls });
  const connection = { url: settings.redis.url };
  const keep = { age: KEEP_FINISHED_SECONDS };
  const defaultJobOptions = { removeOnComplete: keep, removeOnFail: keep };
  const watchQueue = new bullmq.Queue(settings.queues.watch, { connection, defaultJobOptions });
  const deliveryQueue = new bullmq.Queue(settings.queues.delivery, { connection, defaultJobOptions });
  const watches = new bullmq.Worker(settings.queues.watch, createWatchProcessor(client, { deliveryQueue }), {
    connection,
    concurrency: WATCH_CONCURRENCY,
  });
  const deliveries = new bullmq.Worker(settings.queues.delivery, deliver, {
    connection,
    concurrency: DELIVERY_CONCURRENCY,
  });
  const lastError = reportErrors([watchQueue, deliveryQueue, watches, deliveries], log);
  reportJobs(watches, deliveries, log);
  const all = [watchQueue, deliveryQueue, watches, deliveries];
  const ready = await Promise.race([
    Promise.all(all.map((part) => part.waitUntilReady())).then(() => true),
    sleep(REDIS_READY_MS, false, { ref: false }),
  ]);
  const close = (graceMs: number) => closeAll([watches, deliveries], [watchQueue, deliveryQueue], graceMs);
  if (!ready) {
    await closeAll([watches, deliveries], [watchQueue, deliveryQueue], 0);
    const why = lastError() ? `: ${log.scrub(lastError() as string)}` : '';
    const message = `cannot reach Redis at ${settings.redis.shown} within ${REDIS_READY_MS / 1_000} s${why}; check --redis and that the server runs`;
    throw new UsageError([{ code: 'redis_unreachable', message }]);
  }
  return { watchQueue, deliveryQueue, close };
}

/** Log each part's errors (a lost Redis connection...), a message once until another comes; returns the last one. */
function reportErrors(parts: Array<Queue | Worker>, log: RelayLog): () => string | undefined {
  let last: string | undefined;
  const onError = (error: Error) => {
    if (error.message === last) return;
    last = error.message;
    log.line(`error: ${log.scrub(error.message)}`);
  };
  // A listener on each: an 'error' event without one would end the process.
  for (const part of parts) (part as Worker).on('error', onError);
  return () => last;
}

/** One line per settled watch and per delivery try, naming jobs, events and the receiver's origin (never its path: it may hold a token). */
function reportJobs(watches: Worker, deliveries: Worker, log: RelayLog): void {
  watches.on('failed', (job: Job | undefined, error: Error) => {
    log.line(`watch ${job?.id ?? '?'} of ${job?.data?.videoId ?? '?'} failed: ${log.scrub(error.message)}`);
  });
  deliveries.on('completed', (job: Job) => {
    const { event, notifyUrl } = job.data ?? {};
    log.line(`delivered ${event?.id} (${event?.type} of ${event?.data?.id}) to ${originOf(notifyUrl)}, try ${job.attemptsMade}`);
  });
  deliveries.on('failed', (job: Job | undefined, error: Error) => {
    const tries = job ? `try ${job.attemptsMade} of ${job.opts.attempts ?? 1}` : 'a try';
    log.line(`delivery ${job?.data?.event?.id ?? '?'} to ${originOf(job?.data?.notifyUrl)}: ${tries} failed: ${log.scrub(error.message)}`);
  });
}

export function originOf(url: unknown): string {
  return typeof url === 'string' && URL.canParse(url) ? new URL(url).origin : '?';
}

/**
 * Close the workers, waiting up to `graceMs` for their jobs in progress (0: not at all, for a relay that never got
 * going), then the queues. False when jobs were still running: their workers are left to end with the process.
 */
async function closeAll(workers: Worker[], queues: Queue[], graceMs: number): Promise<boolean> {
  const finished = Promise.all(workers.map((worker) => worker.close(graceMs === 0))).then(() => true);
  const done = graceMs === 0 ? await finished : await Promise.race([finished, sleep(graceMs, false, { ref: false })]);
  await Promise.all(queues.map((queue) => queue.close()));
  return done;
}
