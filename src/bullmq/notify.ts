import { InvalidArgumentError, type Video, VideoCancelledError, VideoFailedError } from 'avatar-video';
import type { Job, Queue } from 'bullmq';
import { isServiceFault } from '../lib/service-fault.js';
import { type VideoEventType, videoEvent } from '../webhooks/event.js';
import { deliveryJob } from './delivery-job.js';
import type { VideoJobData } from './job.js';
import { notifyUrlProblem } from './notify-url.js';

/** The queue a processor adds deliveries to: the one the workers of `createDeliveryProcessor` take them from. */
export type DeliveryQueue = Pick<Queue, 'add'>;

/** What the notifier reads of a job: its data, and how many attempts it had and has (BullMQ's `attemptsMade`, `opts.attempts`). */
export type NotifiedJob = Pick<Job<VideoJobData>, 'data'> & Partial<Pick<Job<VideoJobData>, 'attemptsMade' | 'opts'>>;

/** Adds a video job's one delivery once the job settles; each resolves to the id of the event added. */
export interface Notifier {
  /** The file is saved: `video.completed`. */
  completed(video: Video): Promise<string>;
  /** The attempt failed with `error`: its event if that settles the job for good (`settledBy`), else nothing. */
  failed(error: unknown): Promise<string | undefined>;
}

/**
 * The notifier of `job`, or undefined for a job without a notify URL.
 * @throws InvalidArgumentError for a notify URL but no `deliveryQueue`, or job data whose notify URL is not one.
 */
export function notifierOf(job: NotifiedJob, deliveryQueue: DeliveryQueue | undefined): Notifier | undefined {
  const { key, notifyUrl } = job.data;
  if (notifyUrl === undefined) return undefined;
  const problem = notifyUrlProblem(notifyUrl);
  if (problem !== undefined) throw new InvalidArgumentError('notifyUrl', `job data: notifyUrl ${problem}`);
  if (typeof deliveryQueue?.add !== 'function') {
    throw new InvalidArgumentError(
      'deliveryQueue',
      `job ${JSON.stringify(key)} has a notifyUrl, and createVideoProcessor was given no deliveryQueue to send its event with`,
    );
  }
  const add = async (video: Video, type: VideoEventType) => {
    // The event's id comes from the video and the type: an attempt run again after a crash adds the same delivery,
    // whose jobId BullMQ already holds, so the receiver is not sent a second event.
    const delivery = deliveryJob(await videoEvent(video, { type }), notifyUrl);
    await deliveryQueue.add(delivery.name, delivery.data, delivery.opts);
    return delivery.data.event.id;
  };
  return {
    completed: (video) => add(video, 'video.completed'),
    failed: async (error) => {
      const settled = settledBy(error, job);
      return settled === undefined ? undefined : add(settled.video, settled.type);
    },
  };
}

/**
 * The video and event type an attempt's `error` settles its job with for good, or undefined when it does not.
 * CANCELLED is final: the SDK never makes a cancelled job again, and a later attempt would wait on the same one. So
 * is FAILED, unless a later attempt makes a new job for it: after a rate limit (the processor drops the id) or a
 * fault of the service (the job runner makes it again); those settle only on the job's last attempt. Any other error
 * (a wait that timed out, a lost connection) leaves the video unsettled, and sends nothing.
 */
export function settledBy(error: unknown, job: NotifiedJob): { video: Video; type: VideoEventType } | undefined {
  if (error instanceof VideoCancelledError) return { video: error.video, type: 'video.cancelled' };
  if (!(error instanceof VideoFailedError)) return undefined;
  const madeAgain = error.isRateLimited || isServiceFault(error.code);
  return !madeAgain || isLastAttempt(job) ? { video: error.video, type: 'video.failed' } : undefined;
}

/** Whether BullMQ gives up on `job` if this attempt fails (its own test: attempts made, plus this one, reach `attempts`). */
function isLastAttempt(job: NotifiedJob): boolean {
  return (job.attemptsMade ?? 0) + 1 >= (job.opts?.attempts ?? 1);
}
