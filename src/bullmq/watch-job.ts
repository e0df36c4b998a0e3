import { createHash } from 'node:crypto';
import { InvalidArgumentError, type PollState, type Video } from 'avatar-video';
import { checkNotifyUrl } from './notify-url.js';

/** Longest video id taken: ids are short (`vid_` and a few dozen characters), and job data is stored in Redis. */
export const MAX_VIDEO_ID_LENGTH = 256;

/**
 * A watch's data: the video it waits for, where to send the event, and what the processor keeps between its polls.
 * Nothing in it holds the API key: the key stays with the client of each worker host.
 */
export interface WatchJobData {
  /** The video job to watch, made anywhere (a browser through `avatar-video/proxy`, another service). */
  videoId: string;
  /** Where the event is delivered, checked by `checkNotifyUrl`. */
  notifyUrl: string;
  /** When the watch first ran, ms since the epoch: its `waitTimeout` counts from here. Set by the processor. @default undefined */
  startedAt?: number | undefined;
  /** What the last `videos.poll` left for the next. Set by the processor. @default undefined */
  state?: PollState | undefined;
  /** The video as last read, still unsettled: a watch's state for whoever reads the job. Set by the processor. @default undefined */
  video?: Video | undefined;
  /** Polls in a row that failed for a transient reason (5xx, 429, a lost connection). Set by the processor. @default undefined */
  failures?: number | undefined;
}

/** What `watchJob` returns: the arguments of `queue.add(name, data, opts)`, or one entry of `queue.addBulk`. */
export interface WatchQueueJob {
  name: 'watch';
  data: Pick<WatchJobData, 'videoId' | 'notifyUrl'>;
  opts: { jobId: string; attempts: number; backoff: { type: 'exponential'; delay: number } };
}

/** Attempts of a watch: a poll refused for a reason no retry within the run fixes (401, 403) fails one. */
export const WATCH_ATTEMPTS = 5;
/** First delay of the exponential backoff between attempts, in ms: 15 s, 30 s, 1 min, 2 min. */
export const WATCH_BACKOFF_MS = 15_000;

/** What is wrong with `value` as a video id, or undefined: a string of 1 to 256 characters, none a space or control character. */
export function videoIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return "must be a video id as a string, e.g. 'vid_123'";
  if (value.length > MAX_VIDEO_ID_LENGTH) return `is longer than ${MAX_VIDEO_ID_LENGTH} characters`;
  // A space or control character is no id the service gives, and would make the logs and the relay's answers ambiguous.
  if (/[\s\x00-\x1f\x7f]/.test(value) || value === '.' || value === '..') return `is not a video id: ${JSON.stringify(value.slice(0, 60))}`;
  return undefined;
}

/** `value` as a video id. @throws InvalidArgumentError naming `videoId`. */
export function checkVideoId(value: unknown, caller: string): string {
  const problem = videoIdProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError('videoId', `${caller}: videoId ${problem}`);
  return value as string;
}

/**
 * A queue job that watches the video `videoId` until it settles, then has its event delivered to `notifyUrl`:
 * `queue.add(job.name, job.data, job.opts)`. Its `jobId` comes from both (the URL as WHATWG parsing normalizes it), so
 * registering the same watch again while the queue holds its job, completed ones included, adds nothing. `attempts`
 * is 5, with an exponential backoff from 15 s; the polls themselves use none of them.
 * @throws InvalidArgumentError for an id that is not one, or a notify URL that is not an absolute http(s) URL.
 */
export function watchJob(videoId: string, options: { notifyUrl: string }): WatchQueueJob {
  const id = checkVideoId(videoId, 'watchJob');
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'watchJob takes its options: { notifyUrl }');
  const notifyUrl = checkNotifyUrl(options.notifyUrl, 'watchJob');
  // BullMQ refuses ids made of digits only and ids holding ':': a prefix and hex digits are neither.
  const hash = createHash('sha256').update(`${id}\n${notifyUrl}`).digest('hex').slice(0, 32);
  return {
    name: 'watch',
    data: { videoId: id, notifyUrl },
    opts: { jobId: `watch-${hash}`, attempts: WATCH_ATTEMPTS, backoff: { type: 'exponential', delay: WATCH_BACKOFF_MS } },
  };
}
