import { InvalidArgumentError, type VideoModel } from 'avatar-video';
import { keyProblem, sameFileKey } from '../lib/batch/key.js';
import { FILE_FIELDS } from '../lib/media/fields.js';

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

/** A job's data: its item, and the video job made for it once one was created (the processor stores it). */
export interface VideoJobData extends VideoJobItem {
  /** The video job taken up by the next attempt instead of creating another. Set by the processor. @default undefined */
  videoId?: string | undefined;
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
 * @throws InvalidArgumentError for a key that is not a safe file name, or an input that is not a string.
 */
export function videoJob(item: VideoJobItem): VideoQueueJob {
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
  // BullMQ refuses ids made of digits only and ids holding ':'; a prefix rules out the one, the key rules the other.
  const jobId = `video-${sameFileKey(item.key)}`;
  return { name: 'video', data, opts: { jobId, attempts: ATTEMPTS, backoff: { type: 'exponential', delay: BACKOFF_MS } } };
}
