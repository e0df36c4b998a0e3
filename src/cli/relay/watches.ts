/**
 * Watches as the relay's HTTP API shows them: registered as `watchJob` queue jobs, read back from the watch job's
 * state in BullMQ and, once it settled, its delivery job's.
 */
import type { Job, Queue } from 'bullmq';
import { deliveryJobId, watchJob } from './pieces.js';

/** Where a watch is: not run yet, polling, its event being delivered (tries included), delivered, or failed. */
export type WatchState = 'waiting' | 'polling' | 'delivering' | 'delivered' | 'failed';

/** A watch, as `POST /watches` and `GET /watches/{id}` answer. Never the notify URL: it may hold a token. */
export interface WatchView {
  id: string;
  video_id: string;
  state: WatchState;
  /** Polls of the video so far. */
  polls: number;
  /** Polls in a row that failed for a reason a later one may not meet (the service unreachable, 5xx, 429). */
  failed_polls?: number;
  /** The video's status as last read; once settled, the status its event carries. */
  video_status?: string;
  event_id?: string;
  event_type?: string;
  /** Why the relay, not the service, ended the watch: `video_not_found` or `watch_timed_out`. */
  reason?: string;
  /** Tries of the delivery so far. */
  delivery_attempts?: number;
  /** When the receiver answered 2xx, as an ISO 8601 date. */
  delivered_at?: string;
  /** Why the watch or its delivery failed for good, or (`delivering`) why the last try failed. */
  error?: string;
}

export interface WatchStore {
  /**
   * Add the watch, or find the same watch (same video, same notify URL) already there; one there that failed for
   * good (the watch, or its delivery after every try) starts again. `created` is false for a watch found as it was.
   */
  register(videoId: string, notifyUrl: string): Promise<{ created: boolean; watch: WatchView }>;
  /** The watch of that id; undefined when there is none (never made, or removed after its days were up). */
  describe(id: string): Promise<WatchView | undefined>;
}

/** What a settled watch returns (`createWatchProcessor`'s result, `WatchJobResult`). */
interface WatchResult {
  videoId?: string;
  status?: string;
  type?: string;
  eventId?: string;
  reason?: string;
}

/** What the watch processor keeps in a watch job's data between polls (`WatchJobData`), as far as it is shown. */
interface WatchData {
  videoId: string;
  notifyUrl: string;
  /** Set by the watch's first run. */
  startedAt?: number;
  state?: { polls?: unknown };
  video?: { status?: string };
  failures?: number;
}

type Queues = { watchQueue: Pick<Queue, 'add' | 'getJob' | 'getJobState'>; deliveryQueue: Pick<Queue, 'getJob' | 'getJobState'> };

/** A job and its state, read in that order: a job read before it settled would show a settled state with the data of before (its attempts, its end). */
async function readJob(queue: Pick<Queue, 'getJob' | 'getJobState'>, id: string): Promise<{ job: Job; state: string } | undefined> {
  const state = await queue.getJobState(id);
  const job = await queue.getJob(id);
  return job ? { job, state } : undefined;
}

/** The store on the two queues; `scrub` takes secrets out of the failure messages it passes on. */
export function watchStore({ watchQueue, deliveryQueue }: Queues, scrub: (text: string) => string): WatchStore {
  /** The delivery of a settled watch, if the queue still holds it. */
  const deliveryOf = (job: Job): Promise<{ job: Job; state: string } | undefined> => {
    const { eventId } = (job.returnvalue ?? {}) as WatchResult;
    if (eventId === undefined) return Promise.resolve(undefined);
    // The job id is the one thing read of the result, and it comes from the event's id and the URL alone.
    return readJob(deliveryQueue, deliveryJobId(eventId, job.data.notifyUrl));
  };
  const describeJob = async ({ job, state }: { job: Job; state: string }): Promise<WatchView> => {
    const data = job.data as WatchData;
    const view: WatchView = { id: String(job.id), video_id: data.videoId, state: 'waiting', polls: pollsOf(data) };
    if (state === 'failed') return { ...view, state: 'failed', ...errorOf(job, scrub) };
    if (state !== 'completed') {
      // An attempt that failed (a 401 since fixed?) is waiting for the next: its reason is what the caller needs.
      const polling = data.startedAt !== undefined || state === 'active' ? 'polling' : 'waiting';
      const failing = typeof data.failures === 'number' && data.failures > 0 ? { failed_polls: data.failures } : {};
      return { ...view, state: polling, video_status: data.video?.status, ...failing, ...errorOf(job, scrub) };
    }
    const result = (job.returnvalue ?? {}) as WatchResult;
    const delivery = await deliveryOf(job);
    const settled = { ...view, video_status: result.status, event_id: result.eventId, event_type: result.type, reason: result.reason };
    return { ...settled, ...(delivery ? deliveryView(delivery, scrub) : { state: 'delivering' }) };
  };
  /** Start again what failed for good: the watch (a key the service refused, since fixed), or its delivery. */
  const retryFailed = async (watch: { job: Job; state: string }): Promise<boolean> => {
    const failed = watch.state === 'failed' ? watch : watch.state === 'completed' ? await deliveryOf(watch.job) : undefined;
    if (failed?.state !== 'failed') return false;
    // A fresh count: a delivery retried after its last try gets all its tries (and backoff) again.
    await failed.job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  };
  return {
    async register(videoId, notifyUrl) {
      const job = watchJob(videoId, { notifyUrl });
      const existing = await readJob(watchQueue, job.opts.jobId);
      if (existing) {
        const retried = await retryFailed(existing);
        // Read again: a watch or delivery retried is waiting now.
        const now = retried ? await readJob(watchQueue, job.opts.jobId) : existing;
        return { created: retried, watch: await describeJob(now ?? existing) };
      }
      // A POST of the same watch at the same moment adds nothing: BullMQ keeps one job per id.
      await watchQueue.add(job.name, job.data, job.opts);
      return { created: true, watch: { id: job.opts.jobId, video_id: videoId, state: 'waiting', polls: 0 } };
    },
    async describe(id) {
      const read = await readJob(watchQueue, id);
      return read ? describeJob(read) : undefined;
    },
  };
}

function deliveryView(
  { job: delivery, state }: { job: Job; state: string },
  scrub: (text: string) => string,
): Partial<WatchView> & { state: WatchState } {
  const view = { delivery_attempts: delivery.attemptsMade };
  if (state === 'completed') return { ...view, state: 'delivered', delivered_at: isoDate(delivery.finishedOn) };
  if (state === 'failed') return { ...view, state: 'failed', ...errorOf(delivery, scrub) };
  return { ...view, state: 'delivering', ...errorOf(delivery, scrub) };
}

/** The polls a watch job made: the count in the poll state the watch processor stores in its data. */
function pollsOf(data: WatchData | undefined): number {
  const polls = data?.state?.polls;
  return typeof polls === 'number' && Number.isSafeInteger(polls) && polls >= 0 ? polls : 0;
}

function errorOf(job: Job, scrub: (text: string) => string): { error?: string } {
  return job.failedReason ? { error: scrub(job.failedReason) } : {};
}

function isoDate(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}
