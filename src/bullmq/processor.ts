import { join, resolve } from 'node:path';
import {
  type GenerateOptions,
  type GenerateResult,
  InvalidArgumentError,
  type Video,
  type VideoCreateParams,
  VideoFailedError,
  type WaitOptions,
} from 'avatar-video';
import type { Job, Queue } from 'bullmq';
import { savedSize } from '../internal/atomic-file.js';
import { keyProblem } from '../lib/batch/key.js';
import { QueueRateLimitError } from './errors.js';
import type { VideoJobData } from './job.js';
import { type DeliveryQueue, type Notifier, notifierOf } from './notify.js';

/** What the processor uses of the client: `videos.generate`, and `videos.retrieve` for events. An `AvatarVideo` is one. */
export interface GeneratingClient {
  videos: {
    generate(params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult>;
    /**
     * Reads the video of a job whose file an earlier attempt saved, for its `video.completed` (a worker that died
     * between saving and finishing). Needed only by jobs with a `notifyUrl`.
     * @default undefined
     */
    retrieve?: ((videoId: string) => PromiseLike<Video>) | undefined;
  };
}

/**
 * What the processor uses of a BullMQ job. `attemptsMade` and `opts.attempts` tell it the job's last attempt, when a
 * video FAILED for a rate limit or a fault of the service is final and its event is sent; without them every attempt
 * is taken for the last.
 */
export type VideoJobHandle = Pick<Job<VideoJobData, VideoJobResult>, 'data' | 'updateData' | 'updateProgress'> &
  Partial<Pick<Job<VideoJobData, VideoJobResult>, 'attemptsMade' | 'opts'>>;

export interface VideoProcessorOptions
  extends Pick<WaitOptions, 'pollInterval' | 'maxPollInterval' | 'waitTimeout'>,
    Pick<GenerateOptions, 'maxJobAttempts'> {
  /** Folder the videos are saved to, as `<key>.mp4`; it must exist. An item whose file is there is skipped. */
  outputDir: string;
  /** The queue the jobs come from (its `rateLimit` pauses every worker after a 429). */
  queue: Pick<Queue, 'rateLimit'>;
  /**
   * How long the whole queue pauses after a create is refused with 429 when the client gives no wait, in ms. The
   * client hands `onThrottled` the answer's Retry-After, else the wait its create-rate gate has learned; this is
   * for neither. With `workerOptions({ createRate })` no create should be refused at all.
   * @default 5000
   */
  rateLimitDelay?: number | undefined;
  /**
   * The queue deliveries are added to, for jobs made with a `notifyUrl` (`videoJob(item, { notifyUrl })`): when such
   * a job settles, the processor adds its one event there (`deliveryJob`) before it finishes, and a worker running
   * `createDeliveryProcessor` on that queue sends it. A job with a notify URL fails at its start, before any create,
   * without one.
   * @default undefined (jobs with a notify URL fail)
   */
  deliveryQueue?: DeliveryQueue | undefined;
}

/** A job's result, BullMQ's `returnvalue`. */
export interface VideoJobResult {
  key: string;
  /** `saved` by this attempt, or `skipped`: the file was already there. */
  status: 'saved' | 'skipped';
  /** The video job saved; for a skipped item, the one the job stored, if any. */
  videoId: string | undefined;
  /** Absolute path of the MP4. */
  path: string;
  bytes: number;
  /** The event this attempt added to the delivery queue, for a job with a notify URL: `video.completed`'s id. */
  eventId?: string | undefined;
}

/** A BullMQ processor; it takes the `signal` BullMQ passes (since 5.64), which stops the wait, not the video job. */
export type VideoProcessor = (job: VideoJobHandle, token?: string, signal?: AbortSignal) => Promise<VideoJobResult>;

/**
 * A BullMQ processor for jobs made by `videoJob`: it makes the item's video with `client.videos.generate` and saves
 * it to `<outputDir>/<key>.mp4` with the SDK's verified, atomic download. It skips an item whose file is there; stores
 * the video job's id in the job (`updateData`) as soon as the create is answered, so that a later attempt, or another
 * worker after this one died, waits on that job instead of paying for another; clears it after a job FAILED for a
 * rate limit, so the next attempt creates again. A create refused with 429 pauses the queue (`queue.rateLimit`) and
 * puts the job back to waiting (`QueueRateLimitError`). Jobs run outside the client's own limit on jobs at once: the
 * queue's global concurrency is that limit. Progress (`job.updateProgress`) is the service's percent, 100 once saved.
 * A job with a `notifyUrl` adds one delivery to `deliveryQueue` as it settles, before it finishes: `video.completed`
 * once saved (also when a later attempt finds the file saved, read back with `videos.retrieve`), `video.failed` or
 * `video.cancelled` when the video ended so for good (see `VideoJobOptions.notifyUrl`).
 * @throws InvalidArgumentError for options without `outputDir` or `queue`.
 */
export function createVideoProcessor(client: GeneratingClient, options: VideoProcessorOptions): VideoProcessor {
  const { outputDir, queue, rateLimitDelay = 5_000, deliveryQueue, ...wait } = options ?? ({} as VideoProcessorOptions);
  if (typeof outputDir !== 'string' || outputDir === '')
    throw new InvalidArgumentError('outputDir', 'createVideoProcessor needs an outputDir');
  if (typeof queue?.rateLimit !== 'function')
    throw new InvalidArgumentError('queue', 'createVideoProcessor needs the queue the jobs come from');
  const folder = resolve(outputDir);
  // Three parameters: BullMQ passes the signal only to a processor whose `length` is 3.
  return async (job, _token, signal) => {
    const { key, videoId } = job.data;
    const problem = keyProblem(key);
    if (problem !== undefined) throw new InvalidArgumentError('key', `job data: ${problem}`);
    const notifier = notifierOf(job, deliveryQueue);
    const path = join(folder, `${key}.mp4`);
    const bytes = await savedSize(path);
    if (bytes !== undefined) return { key, status: 'skipped', videoId, path, bytes, ...(await skippedEvent(client, notifier, videoId)) };
    const progress = progressOf(job);
    try {
      const saved = await client.videos.generate(createParams(job.data), {
        ...wait,
        output: path,
        videoId,
        jobLimit: 'external',
        signal,
        onCreated: (video) => job.updateData({ ...job.data, videoId: video.id }),
        onThrottled: async (retryAfterMs) => {
          const delayMs = retryAfterMs ?? rateLimitDelay;
          await queue.rateLimit(delayMs);
          throw new QueueRateLimitError(delayMs);
        },
        onProgress: (video) => progress.report(video.progress ?? 0),
      });
      await progress.report(100);
      // Added before the job completes: a worker that dies in between leaves the job to run again, which finds the
      // file saved and adds the same delivery (skippedEvent), which BullMQ then holds already.
      const eventId = await notifier?.completed(saved.video);
      const result: VideoJobResult = { key, status: 'saved', videoId: saved.video.id, path: saved.path, bytes: saved.bytes };
      return eventId === undefined ? result : { ...result, eventId };
    } catch (error) {
      // That job is over and was not paid for: the next attempt must create one, not wait on it again.
      // Should the update fail, the next attempt finds that job FAILED for a rate limit, and generate creates again.
      if (error instanceof VideoFailedError && error.isRateLimited) await job.updateData(withoutVideoId(job.data)).catch(() => undefined);
      await notifier?.failed(error);
      throw error;
    } finally {
      await progress.settled();
    }
  };
}

/** The create parameters of an item (paths or `file:` URL strings, which the SDK opens): without the key, a stored id or the notify URL. */
function createParams(data: VideoJobData): VideoCreateParams {
  const { key: _key, videoId: _videoId, notifyUrl: _notifyUrl, ...params } = data;
  return params as VideoCreateParams;
}

/**
 * The `video.completed` of a job whose file an earlier attempt saved, read back from the service: that attempt may
 * have died before adding it. Nothing without a notifier, or without a stored id (the file was there before the job
 * made a video: there is no video to tell of).
 */
async function skippedEvent(client: GeneratingClient, notifier: Notifier | undefined, videoId: string | undefined) {
  if (notifier === undefined || videoId === undefined) return {};
  if (typeof client.videos.retrieve !== 'function') {
    throw new InvalidArgumentError(
      'client',
      'createVideoProcessor: a job with a notifyUrl whose file is saved needs client.videos.retrieve',
    );
  }
  const video = await client.videos.retrieve(videoId);
  return { eventId: await notifier.completed(video) };
}

function withoutVideoId(data: VideoJobData): VideoJobData {
  const { videoId: _ended, ...rest } = data;
  return rest;
}

/**
 * Progress sent to the job as whole percents, each value once and in order. A failed update is dropped: progress is
 * for display, and a lost update must not fail a paid video.
 */
function progressOf(job: VideoJobHandle): { report(percent: number): Promise<void>; settled(): Promise<void> } {
  let last = -1;
  let chain = Promise.resolve();
  return {
    report(percent) {
      const value = Math.round(percent);
      if (value > last) {
        last = value;
        chain = chain.then(() => job.updateProgress(value)).catch(() => undefined);
      }
      return chain;
    },
    settled: () => chain,
  };
}
