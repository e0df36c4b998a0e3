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

type Queues = { watchQueue: Pick<Queue, 'add' | 'getJob'>; deliveryQueue: Pick<Queue, 'getJob'> };

/** The store on the two queues; `scrub` takes secrets out of the failure messages it passes on. */
export function watchStore({ watchQueue, deliveryQueue }: Queues, scrub: (text: string) => string): WatchStore {
  /** The delivery of a settled watch, if the queue still holds it. */
  const deliveryOf = (job: Job): Promise<Job | undefined> => {
    const { eventId } = (job.returnvalue ?? {}) as WatchResult;
    if (eventId === undefined) return Promise.resolve(undefined);
    // The job id is the one thing read of the result, and it comes from the event's id and the URL alone.
    const jobId = deliveryJobId(eventId, job.data.notifyUrl);
    return deliveryQueue.getJob(jobId);
  };
  const describeJob = async (job: Job): Promise<WatchView> => {
    const state = await job.getState();
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
    return { ...settled, ...(delivery ? await deliveryView(delivery, scrub) : { state: 'delivering' }) };
  };
  /** Start again what failed for good: the watch (a key the service refused, since fixed), or its delivery. */
  const retryFailed = async (job: Job): Promise<boolean> => {
    const state = await job.getState();
    const failed = state === 'failed' ? job : state === 'completed' ? await deliveryOf(job) : undefined;
    if (failed === undefined || (failed !== job && (await failed.getState()) !== 'failed')) return false;
    // A fresh count: a delivery retried after its last try gets all its tries (and backoff) again.
    await failed.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  };
  return {
    async register(videoId, notifyUrl) {
      const job = watchJob(videoId, { notifyUrl });
      const existing = await watchQueue.getJob(job.opts.jobId);
      if (existing) {
        const retried = await retryFailed(existing);
        return { created: retried, watch: await describeJob(existing) };
      }
      // A POST of the same watch at the same moment adds nothing: BullMQ keeps one job per id.
      await watchQueue.add(job.name, job.data, job.opts);
      return { created: true, watch: { id: job.opts.jobId, video_id: videoId, state: 'waiting', polls: 0 } };
    },
    async describe(id) {
      const job = await watchQueue.getJob(id);
      return job ? describeJob(job) : undefined;
    },
  };
}

async function deliveryView(delivery: Job, scrub: (text: string) => string): Promise<Partial<WatchView> & { state: WatchState }> {
  const state = await delivery.getState();
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
