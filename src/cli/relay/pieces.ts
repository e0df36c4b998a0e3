/**
 * The parts of avatar-video/bullmq the relay runs: the watch and delivery processors, `watchJob`, and `deliveryJob`
 * (whose job id finds a watch's delivery).
 *
 * PLACEHOLDER until the watch and delivery branches are merged into main. Then this file becomes one line,
 *   export { createDeliveryProcessor, createWatchProcessor, deliveryJob, watchJob } from '../../bullmq/index.js';
 * (test/policies/layering.test.ts then lets this one file of cli/ import bullmq/index.ts).
 * Until then each function has its fixed signature and throws, but `watchJob`, small enough to stand in for itself,
 * so that the relay's HTTP API can be tried before the merge.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../../index.js';

/** A BullMQ processor, as the Worker takes it. */
// biome-ignore lint/suspicious/noExplicitAny: BullMQ's Job, whose type the placeholder does not need.
type Processor = (job: any, token?: string) => Promise<unknown>;

/** `queue.add`'s arguments for a watch of `videoId`; one job per (video, notify URL) pair. */
export function watchJob(
  videoId: string,
  options: { notifyUrl: string },
): { name: 'watch'; data: { videoId: string; notifyUrl: string }; opts: { jobId: string } } {
  if (typeof videoId !== 'string' || videoId.trim() === '')
    throw new InvalidArgumentError('videoId', 'watchJob: videoId must be a video id');
  const { notifyUrl } = options;
  if (typeof notifyUrl !== 'string' || !/^https?:\/\//.test(notifyUrl))
    throw new InvalidArgumentError('notifyUrl', 'watchJob: notifyUrl must be an absolute http: or https: URL');
  const jobId = `watch-${createHash('sha256').update(`${videoId}\n${notifyUrl}`).digest('hex').slice(0, 32)}`;
  return { name: 'watch', data: { videoId, notifyUrl }, opts: { jobId } };
}

export function createWatchProcessor(
  _client: unknown,
  _options: { deliveryQueue: unknown; pollInterval?: number; maxPollInterval?: number; waitTimeout?: number },
): Processor {
  return async () => {
    throw new Error('createWatchProcessor is not merged into this branch yet');
  };
}

export function createDeliveryProcessor(_options: { secret: string; allowPrivateNotifyUrls?: boolean; timeoutMs?: number }): Processor {
  return async () => {
    throw new Error('createDeliveryProcessor is not merged into this branch yet');
  };
}

export function deliveryJob(_event: { id: string }, _notifyUrl: string): { opts: { jobId: string } } {
  throw new Error('deliveryJob is not exported from avatar-video/bullmq in this branch yet');
}
