/**
 * The processor of watches (`watchJob`): one `videos.poll` per run, the job put back in the delayed set until the
 * next poll is due, so that no worker sleeps on a watch and any host of the queue takes the next step.
 */
import {
  APIConnectionError,
  APIError,
  InvalidArgumentError,
  type PollOptions,
  type PollResult,
  type PollState,
  type Video,
  type VideoStatus,
  type WaitOptions,
} from 'avatar-video';
import type { Job } from 'bullmq';
import { backoff, isNeverRetried, isRetryableReadStatus } from '../internal/retry-rules.js';
import { type VideoEventReason, type VideoEventType, videoEvent } from '../webhooks/event.js';
import { deliveryJob } from './delivery-job.js';
import type { DeliveryQueue } from './notify.js';
import { checkNotifyUrl } from './notify-url.js';
import { checkVideoId, type WatchJobData } from './watch-job.js';

/** What the processor uses of the client: `videos.poll`. An `AvatarVideo` is one. */
export interface PollingClient {
  videos: { poll(video: string, state?: PollState, options?: PollOptions): Promise<PollResult> };
}

/** What the processor uses of a BullMQ job. */
export type WatchJobHandle = Pick<Job<WatchJobData, WatchJobResult>, 'data' | 'updateData' | 'moveToDelayed'>;

/** Options of `createWatchProcessor`: where deliveries go, the poll schedule of each watch, and its bound. */
export interface WatchProcessorOptions extends Pick<WaitOptions, 'pollInterval' | 'maxPollInterval'> {
  /** The application's queue of deliveries: one is added when a watch ends, whatever the way (required). */
  deliveryQueue: DeliveryQueue;
  /**
   * Bound on a watch's whole wait, in ms, counted from its first poll: a video still unsettled then ends the watch
   * with `video.failed`, reason `watch_timed_out`, and the video as last read. The video job keeps running on the
   * service. Longer than `waitForCompletion`'s, since nothing is held open meanwhile.
   * @default 3600000 (1 hour)
   */
  waitTimeout?: number | undefined;
}

/** A watch's result, BullMQ's `returnvalue`: how the video ended and the event delivered for it. */
export interface WatchJobResult {
  /** The watched video's id. */
  videoId: string;
  /** The status of the event's video: for `watch_timed_out`, the last one read (still QUEUED or PROCESSING). */
  status: VideoStatus;
  /** The event delivered: `video.completed`, `video.failed` or `video.cancelled`. */
  type: VideoEventType;
  /** The event's id, also its deliveries' `webhook-id`. */
  eventId: string;
  /** Why the SDK ended the watch, when the service did not settle the video. @default undefined */
  reason?: VideoEventReason['code'] | undefined;
}

/** A BullMQ processor of watches; it needs the lock `token` BullMQ passes, to put the job back as delayed. */
export type WatchProcessor = (job: WatchJobHandle, token?: string) => Promise<WatchJobResult>;

/** `WatchProcessorOptions.waitTimeout`'s default: an hour, six times the longest job the service's docs show. */
export const WATCH_TIMEOUT_MS = 3_600_000;
/** `videos.poll`'s own default `pollInterval`: the first delay after a failed poll when none is given. */
const DEFAULT_POLL_INTERVAL = 2_000;
/** Longest delay after failed polls: an outage of the service must not make a settled video wait longer to be seen. */
export const WATCH_RETRY_CAP_MS = 60_000;
/**
 * The delay before the next poll of a watch whose last `failures` polls (1 or more) failed for a transient reason,
 * in ms: the client's backoff curve, `pollInterval` after the first, doubling after each, at most a minute.
 */
export function watchRetryDelay(failures: number, pollInterval = DEFAULT_POLL_INTERVAL, random: () => number = Math.random): number {
  return backoff(failures, pollInterval, WATCH_RETRY_CAP_MS, random);
}

/**
 * The signal that puts a watch back to wait: BullMQ's worker takes an error named `DelayedError` as "the processor
 * moved the job to the delayed set itself", and neither fails the job nor uses an attempt. This entry imports
 * nothing of BullMQ at run time, hence a class of its own with that name and BullMQ's message.
 */
class WatchDelayedError extends Error {
  override name = 'DelayedError';
  constructor() {
    super('bullmq:movedToDelayed');
  }
}

/** How a failed poll is handled: the video is gone, try again later, or fail the job (BullMQ's attempts). */
type FailureKind = 'not_found' | 'transient' | 'fatal';

/**
 * What a failed `videos.poll` means for a watch, by the client's own retry rules (internal/retry-rules.ts). It throws once the client's own retries are spent: a 404 is the
 * video gone (or never made with this key); 408, 409, 429, 5xx and a lost connection are transient; anything else
 * (401, 403, a damaged answer) is a fault no poll fixes, left to BullMQ's attempts and its failed set.
 */
export function failureKind(error: unknown): FailureKind {
  if (error instanceof APIError) {
    if (error.status === 404) return 'not_found';
    return isRetryableReadStatus(error.status) ? 'transient' : 'fatal';
  }
  if (error instanceof APIConnectionError) return isNeverRetried(error.code) ? 'fatal' : 'transient';
  return 'fatal';
}

/**
 * A BullMQ processor for jobs made by `watchJob`. Each run takes one `videos.poll` step and stores its state in the
 * job (`updateData`); while the video is QUEUED or PROCESSING it moves the job to the delayed set until the poll
 * schedule's next poll (`moveToDelayed`), so a watch holds no worker between polls and any worker of the queue takes
 * the next. Once the video is COMPLETE, FAILED or CANCELLED it adds the event's delivery to `deliveryQueue` and
 * returns. A 404 ends the watch with `video.failed`, reason `video_not_found`; so does `waitTimeout`, reason
 * `watch_timed_out`. A transient failure polls again later (`watchRetryDelay`), within `waitTimeout`. Use one client
 * for every watch of a worker: its connections are reused.
 * @throws InvalidArgumentError for options without a `deliveryQueue`, or a `waitTimeout` that is not a positive number.
 */
export function createWatchProcessor(client: PollingClient, options: WatchProcessorOptions): WatchProcessor {
  const { deliveryQueue, waitTimeout = WATCH_TIMEOUT_MS, pollInterval, maxPollInterval } = options ?? ({} as WatchProcessorOptions);
  if (typeof client?.videos?.poll !== 'function')
    throw new InvalidArgumentError('client', 'createWatchProcessor needs a client with videos.poll, e.g. an AvatarVideo');
  if (typeof deliveryQueue?.add !== 'function')
    throw new InvalidArgumentError('deliveryQueue', 'createWatchProcessor needs the queue deliveries are added to');
  if (typeof waitTimeout !== 'number' || !(waitTimeout > 0))
    throw new InvalidArgumentError('waitTimeout', 'createWatchProcessor: waitTimeout must be a positive number of ms');
  const schedule: PollOptions = {};
  if (pollInterval !== undefined) schedule.pollInterval = pollInterval;
  if (maxPollInterval !== undefined) schedule.maxPollInterval = maxPollInterval;
  const watch: Watch = { client, deliveryQueue, waitTimeout, schedule, firstDelay: pollInterval ?? DEFAULT_POLL_INTERVAL };
  return (job, token) => runWatch(watch, job, token);
}

/** A processor's settled options. */
interface Watch {
  client: PollingClient;
  deliveryQueue: DeliveryQueue;
  waitTimeout: number;
  schedule: PollOptions;
  firstDelay: number;
}

/** One run of a watch: one poll, then the delivery or the job back in the delayed set. */
async function runWatch(watch: Watch, job: WatchJobHandle, token: string | undefined): Promise<WatchJobResult> {
  const data = checkedData(job.data);
  // The wall clock, as the runs happen in different processes.
  const startedAt = data.startedAt ?? Date.now();
  const deadline = startedAt + watch.waitTimeout;
  let step: PollResult;
  try {
    step = await pollOnce(watch, data);
  } catch (error) {
    const kind = failureKind(error);
    if (kind === 'fatal') throw error;
    if (kind === 'not_found') {
      const message = `The service answered 404 for video ${data.videoId}: no such video for this API key.`;
      return settle(watch, data, standIn(data.videoId, startedAt, 'video_not_found', message), { code: 'video_not_found', message });
    }
    if (Date.now() >= deadline) return timedOut(watch, data, startedAt);
    const failures = (data.failures ?? 0) + 1;
    await job.updateData({ ...data, startedAt, failures });
    return putBack(job, token, Math.min(watchRetryDelay(failures, watch.firstDelay), deadline - Date.now()));
  }
  if (step.done) return settle(watch, data, step.video);
  const next: WatchJobData = { ...data, startedAt, state: step.state, video: step.video, failures: 0 };
  if (Date.now() >= deadline) return timedOut(watch, next, startedAt);
  await job.updateData(next);
  // The last poll lands on the deadline, so the timed-out event carries a video read then.
  return putBack(job, token, Math.min(step.nextPollAfterMs, deadline - Date.now()));
}

/** One `videos.poll` step from the stored state; a state this SDK version cannot read (after an upgrade) starts the schedule afresh. */
async function pollOnce(watch: Watch, data: WatchJobData): Promise<PollResult> {
  const { client, schedule } = watch;
  if (data.state === undefined) return client.videos.poll(data.videoId, undefined, schedule);
  try {
    return await client.videos.poll(data.videoId, data.state, schedule);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError && error.argument === 'state')) throw error;
    return client.videos.poll(data.videoId, undefined, schedule);
  }
}

/** The job's data, checked again: anyone with access to Redis may have added it, by other means than `watchJob`. */
function checkedData(data: WatchJobData): WatchJobData {
  if (typeof data !== 'object' || data === null)
    throw new InvalidArgumentError('data', 'a watch job holds { videoId, notifyUrl }: add it with watchJob');
  return { ...data, videoId: checkVideoId(data.videoId, 'watch job data'), notifyUrl: checkNotifyUrl(data.notifyUrl, 'watch job data') };
}

/** Back to the delayed set for `ms`: the worker's lock `token` proves the job is this run's. */
async function putBack(job: WatchJobHandle, token: string | undefined, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + Math.max(0, Math.round(ms)), token);
  throw new WatchDelayedError();
}

/** The end of a watch at its `waitTimeout`: `video.failed` with the video as last read, or a stand-in if none was. */
function timedOut(watch: Watch, data: WatchJobData, startedAt: number): Promise<WatchJobResult> {
  const { waitTimeout } = watch;
  const bound = waitTimeout >= 60_000 ? `${Math.round(waitTimeout / 6_000) / 10} min` : `${Math.round(waitTimeout / 100) / 10} s`;
  const seen = data.video ? `last seen ${data.video.status}` : 'never read';
  const message = `Video ${data.videoId} did not settle within the watch's waitTimeout of ${bound} (${seen}); it may still run on the service.`;
  const video = data.video ?? standIn(data.videoId, startedAt, 'watch_timed_out', message);
  return settle(watch, data, video, { code: 'watch_timed_out', message });
}

/**
 * A video of the id for an event the service gave nothing to read for: FAILED, `error` the reason. Its
 * `created_at` is the watch's start, the only time known of it.
 */
function standIn(videoId: string, startedAt: number, code: VideoEventReason['code'], message: string): Video {
  return { id: videoId, status: 'FAILED', created_at: Math.floor(startedAt / 1000), progress: null, error: { code, message } };
}

/** Adds the delivery of `video`'s event. Its job id comes from the event, so a run repeated after a crash adds none. */
async function settle(watch: Watch, data: WatchJobData, video: Video, reason?: VideoEventReason): Promise<WatchJobResult> {
  const event = await videoEvent(video, { reason });
  const delivery = deliveryJob(event, data.notifyUrl);
  await watch.deliveryQueue.add(delivery.name, delivery.data, delivery.opts);
  const result: WatchJobResult = { videoId: data.videoId, status: event.data.status, type: event.type, eventId: event.id };
  if (reason !== undefined) result.reason = reason.code;
  return result;
}
