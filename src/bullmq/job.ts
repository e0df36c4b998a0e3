import { InvalidArgumentError, type VideoModel } from 'avatar-video';
import { keyProblem, sameFileKey } from '../lib/batch/key.js';
import { FILE_FIELDS } from '../lib/media/fields.js';
import { checkNotifyUrl } from './notify-url.js';

/**
 * One video to make, as a queue holds it: a batch item whose inputs are strings, since job data is stored as JSON.
 * Each input is a path, or a `file:` URL, that every worker can read: an absolute path on storage all worker hosts
 * mount, for instance. The video is saved as `<outputDir>/<key>.mp4` by the worker that makes it.
 */
export interface VideoJobItem {
  /** Names the output file, `<key>.mp4`, under the rules of batch keys: letters, digits, `.`, `_` and `-`, at most 128. */
  key: string;
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: string;
  /** Appearance image: JPEG or PNG. Exactly one of `image_reference` and `video_reference`. */
  image_reference?: string | undefined;
  /** Appearance video: MP4 or MOV, 10 to 60 s. */
  video_reference?: string | undefined;
  /** Model name. @default the service's default */
  model?: VideoModel | undefined;
}

/** A job's data: its item, where to send its event, and the video job made for it once one was created (the processor stores it). */
export interface VideoJobData extends VideoJobItem {
  /** The video job taken up by the next attempt instead of creating another. Set by the processor. @default undefined */
  videoId?: string | undefined;
  /** Where the processor sends the job's event once it settles (`videoJob`'s option). @default undefined: no event */
  notifyUrl?: string | undefined;
}

/** Options of `videoJob`. */
export interface VideoJobOptions {
  /**
   * An `http:` or `https:` URL to POST the job's signed event to once it settles: `video.completed` when the file is
   * saved, `video.failed` or `video.cancelled` when the video ended so for good. The processor then needs a
   * `deliveryQueue`, and a worker of that queue runs `createDeliveryProcessor`. Not logged and not in the event: a
   * token in its path or query stays between the application and its receiver (Redis holds it, in the job's data).
   * @default undefined (no event)
   */
  notifyUrl?: string | undefined;
}

/** What `videoJob` returns: the arguments of `queue.add(name, data, opts)`, or one entry of `queue.addBulk`. */
export interface VideoQueueJob {
  name: 'video';
  data: VideoJobData;
  opts: { jobId: string; attempts: number; backoff: { type: 'exponential'; delay: number } };
}

/** Attempts of a queue job. The SDK makes a video's job up to 3 times within one attempt; these cover what is left (a lost connection, a wait that timed out). */
const ATTEMPTS = 5;
/** First delay of the exponential backoff between attempts, in ms: 15 s, 30 s, 1 min, 2 min. */
const BACKOFF_MS = 15_000;

/**
 * A queue job for `item`: `queue.add(job.name, job.data, job.opts)` or `queue.addBulk([job, ...])`. Its `jobId` comes
 * from the key, so adding the same item again while the queue still holds its job adds nothing; keys that differ only
 * in case share one (they name the same file on macOS and Windows). `attempts` is 5, with an exponential backoff from 15 s.
 * With `notifyUrl`, the processor sends the job's event there when it settles (see `VideoJobOptions`).
 * @throws InvalidArgumentError for a key that is not a safe file name, an input that is not a string, or a notify URL
 * that is not an absolute http(s) URL (or holds a user name or password).
 */
export function videoJob(item: VideoJobItem, options?: VideoJobOptions): VideoQueueJob;
/** `items.map(videoJob)`: the index `map` passes is no option, and is ignored. */
export function videoJob(item: VideoJobItem, index: number): VideoQueueJob;
export function videoJob(item: VideoJobItem, options?: VideoJobOptions | number): VideoQueueJob {
  if (typeof item !== 'object' || item === null)
    throw new InvalidArgumentError('item', 'videoJob takes an item: { key, audio_reference, ... }');
  const problem = keyProblem(item.key);
  if (problem !== undefined) throw new InvalidArgumentError('key', `videoJob: ${problem}`);
  const data: VideoJobData = { key: item.key, audio_reference: item.audio_reference };
  for (const field of FILE_FIELDS) {
    const value = item[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      throw new InvalidArgumentError(
        field,
        `videoJob: ${field} of ${JSON.stringify(item.key)} must be a path or a file: URL, as a string (job data is stored as JSON)`,
      );
    }
    data[field] = value;
  }
  if (item.model !== undefined) data.model = item.model;
  const notifyUrl = notifyUrlOf(options);
  if (notifyUrl !== undefined) data.notifyUrl = notifyUrl;
  // BullMQ refuses ids made of digits only and ids holding ':'; a prefix rules out the one, the key rules the other.
  const jobId = `video-${sameFileKey(item.key)}`;
  return { name: 'video', data, opts: { jobId, attempts: ATTEMPTS, backoff: { type: 'exponential', delay: BACKOFF_MS } } };
}

/** The checked notify URL of `videoJob`'s options; a number is the index `Array.prototype.map` passes, no option. */
function notifyUrlOf(options: VideoJobOptions | number | undefined): string | undefined {
  if (options === undefined || typeof options === 'number') return undefined;
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'videoJob takes options { notifyUrl? }');
  return options.notifyUrl === undefined ? undefined : checkNotifyUrl(options.notifyUrl, 'videoJob');
}
