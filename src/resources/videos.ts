import type { Answer, APIPromise } from '../internal/api-promise.js';
import { checkArgument, checkOptions, ITERABLE, pathTo, refuseOption, videoIdOf } from '../internal/arguments.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Transport } from '../internal/transport.js';
import { generateBatch } from '../lib/batch/generate-batch.js';
import type { BatchItem, BatchSummary, GenerateBatchOptions } from '../lib/batch/types.js';
import type { VideoContent } from '../lib/content.js';
import { type DownloadOptions, type DownloadResult, downloadVideo } from '../lib/download.js';
import type { CreateOptions, JobContext } from '../lib/endpoints.js';
import {
  type CreateAndWaitOptions,
  createAndWait,
  type GenerateOptions,
  type GenerateResult,
  generate,
  MAX_RETRIES_APPLIES,
} from '../lib/generate.js';
import { type GenerateLongOptions, type GenerateLongResult, generateLong } from '../lib/long/generate-long.js';
import { checkParams, type VideoCreateParams } from '../lib/media/prepare.js';
import { type PollOptions, type PollResult, type PollState, pollVideo } from '../lib/poll.js';
import { type WaitOptions, waitForVideo } from '../lib/wait.js';
import { type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
import type { Video } from '../schemas.js';
import { VideoEndpoints } from './endpoints.js';

export type { CreateOptions } from '../lib/endpoints.js';

/** Options of `videos.contentURL`. */
export type ContentURLOptions = RequestOptions;

/**
 * `client.videos`: the endpoint methods of `/v1/videos`, and the workflows built on them. Every endpoint method
 * returns an `APIPromise`: await it for the result, or call `.withResponse()` for the request id, status and headers.
 * Every method checks its arguments before any request: one missing or of the wrong kind (no options where some
 * are needed, a `timeout` that is not a number) rejects with an `InvalidArgumentError` that says what to pass.
 */
export class Videos {
  readonly #transport: Transport;
  /** The endpoints: what every method below calls, and the one port of calls the workflows of lib/ take. */
  readonly #api: VideoEndpoints;
  /** What the workflows of lib/ know of the client besides its calls: its limit on jobs, limits, logger, defaults. */
  readonly #context: JobContext;

  /** @internal Built by the client, which owns the transport. */
  static build(transport: Transport, limits: { maxAudioSeconds: number }, limiter: ConcurrencyLimiter): Videos {
    return new Videos(transport, limits, limiter);
  }

  // Private, and built through `build` above: the published type shows no constructor, nor the internal types it takes.
  private constructor(transport: Transport, limits: { maxAudioSeconds: number }, limiter: ConcurrencyLimiter) {
    this.#transport = transport;
    this.#api = new VideoEndpoints(transport, limits);
    const { logger, timeout, maxRetryDelay } = transport;
    this.#context = { logger, timeout, maxRetryDelay, limiter, limits };
  }

  /**
   * Start a video job from a driving audio file and one visual reference.
   * Inputs are checked locally first (formats from their bytes, durations measured), so a bad file
   * fails in milliseconds with every problem listed, before any upload. A refused create (429 with a `Retry-After`
   * up to `maxRetryDelay`, 503, or a connection that failed before sending) started no job and is sent again, up to
   * `maxRetries` times; one that may have reached the server is not: a duplicate job would be billed twice.
   * `signal` stops the upload while it is being sent; an abort after it has left waits for the answer and returns
   * the job, which exists and is paid for.
   */
  create(params: VideoCreateParams, options?: CreateOptions): APIPromise<Video> {
    const method = 'videos.create';
    return this.#transport.promise(() => this.#api.create(checkParams(method, params), checkOptions(method, options)));
  }

  /**
   * Read a job's current state.
   * @param video An id, or a video (its `id` is read again).
   */
  retrieve(video: string | Video, options?: RequestOptions): APIPromise<Video> {
    const method = 'videos.retrieve';
    return this.#transport.promise(() => this.#api.retrieve(videoIdOf(method, video), checkOptions(method, options)));
  }

  /**
   * List videos, newest first unless `order: 'asc'`. Await it for one page, or iterate it to walk every page:
   * `for await (const video of client.videos.list()) { ... }`. Each later page is asked `after` the last id
   * seen, with the same `order` and `limit`.
   * @throws InvalidArgumentError for a `limit` that is not a whole number from 1 to 100, or an `order`
   * other than `asc` or `desc`; nothing is requested.
   */
  list(params?: VideoListParams, options?: RequestOptions): VideoPagePromise {
    const next = async (query: VideoListParams) => (await this.#api.list(query, options)).data;
    const first = async (): Promise<Answer<VideoPage>> => {
      const query = checkOptions('videos.list', params, undefined, 'params');
      checkOptions('videos.list', options);
      const answer = await this.#api.list(query, options);
      return { ...answer, data: VideoPage.build(answer.data, query, next) };
    };
    return VideoPagePromise.build(this.#transport.promise(first));
  }

  /**
   * Stream the MP4 of a COMPLETE video. The redirect is followed here, and the key is not sent to the
   * file's host. Use `download` to save to a file; this is for piping elsewhere. Unlike `download`, the
   * bytes are NOT verified: they are whatever the file host sends, as it sends them.
   * @param video An id, or a video (its `id` is used).
   */
  content(video: string | Video, options?: RequestOptions): APIPromise<VideoContent> {
    const method = 'videos.content';
    return this.#transport.promise(() => this.#api.content(videoIdOf(method, video), checkOptions(method, options)));
  }

  /**
   * The signed address of a COMPLETE video's file, for a `<video>` tag, a player or another service: the
   * content redirect is resolved and nothing is sent to the file host. The address is a secret of its own
   * (anyone holding it can fetch the video) and may expire: ask again rather than storing it.
   * @param video An id, or a video (its `id` is used).
   */
  contentURL(video: string | Video, options?: ContentURLOptions): APIPromise<string> {
    const method = 'videos.contentURL';
    return this.#transport.promise(() => this.#api.contentURL(videoIdOf(method, video), checkOptions(method, options)));
  }

  /**
   * Poll a job until it is COMPLETE and return it. Polls are timed from the job's progress: sparse while its
   * end is far, a quarter of `pollInterval` apart near it; without usable progress they back off from
   * `pollInterval` to `maxPollInterval`. `onProgress` gets the estimated `etaSeconds`. A transient error (5xx, 429, a dropped connection) does not end the
   * wait; 401, 403 and 404 do.
   * @param video An id, or a video (its `id` is polled).
   * @throws VideoFailedError when the job FAILED (`code`, `message`, `isRateLimited`).
   * @throws VideoCancelledError when the job was CANCELLED.
   * @throws WaitTimeoutError after `waitTimeout`, with the last state seen. The job keeps running.
   * @throws APIUserAbortError when `signal` fires.
   */
  async waitForCompletion(video: string | Video, options?: WaitOptions): Promise<Video> {
    const method = 'videos.waitForCompletion';
    return waitForVideo(this.#api, this.#context, videoIdOf(method, video), checkOptions(method, options));
  }

  /**
   * One step of `waitForCompletion`, for a process that cannot wait minutes (a Lambda, a workflow step): retrieve the
   * job once and say when to poll next. Pass the returned `state` (a JSON value: store it anywhere) to the next
   * call, in any process, and the polls are timed as `waitForCompletion` times them, server hints included. No
   * `state` starts the schedule, e.g. right after `create`. Nothing is thrown for how the job ended: `done` is true
   * once it is COMPLETE, FAILED or CANCELLED, and `video.status` and `video.error` say which. A failed request
   * throws as `retrieve` does (after its retries); `state` is unchanged then, so calling again with it is safe.
   * @param video An id, or a video (its `id` is polled).
   * @param state What the previous `poll` of this video returned, or undefined for the first poll.
   * @throws InvalidArgumentError naming `state` when it is damaged, of another SDK version's layout or of another
   * video; nothing is requested. Start afresh (no `state`) to go on.
   */
  async poll(video: string | Video, state?: PollState, options?: PollOptions): Promise<PollResult> {
    const method = 'videos.poll';
    return pollVideo(this.#api, videoIdOf(method, video), state, checkOptions(method, options));
  }

  /**
   * `create`, then `waitForCompletion`. Every error after the create carries the job's `videoId`, and its message
   * names the job and, while it may still run, the call that waits for it again.
   * `timeout` and the other request options apply to the create (a large upload may need a longer `timeout`);
   * `waitTimeout` bounds the wait for each job (a whole call: `signal`). Jobs of one client share one adaptive limit on how many run at once (it starts
   * at 2 and grows while the service keeps up): a call beyond it waits for a place before creating anything, and
   * that wait counts against neither `timeout` nor `waitTimeout`. A refused create is sent again once its
   * `Retry-After` has passed, without holding a place; a job FAILED for a rate limit or a fault of the service is
   * made again (`maxJobAttempts`, 3 jobs at most). When the wait stops for another reason (an abort, a 401), a
   * warning names the job, which keeps running on the service.
   */
  async createAndWait(params: VideoCreateParams, options?: CreateAndWaitOptions): Promise<Video> {
    const method = 'videos.createAndWait';
    const checked = refuseOption(method, checkOptions(method, options), 'maxRetries', MAX_RETRIES_APPLIES);
    return createAndWait(this.#api, this.#context, checkParams(method, params), checked);
  }

  /**
   * Save a COMPLETE video to `path`. Bytes go to a temporary file beside `path`, are checked (the announced
   * size, a type that is not a document, an MP4 whose top-level boxes add up), flushed to disk, then renamed
   * over `path`: a failed or aborted download never leaves a partial file there, nor touches a file already
   * there. A dropped connection is resumed with a byte range only when the first answer proved which file it
   * is; otherwise it starts over. For piping elsewhere (S3, an HTTP response), use `content`.
   * @param video An id (its status is checked first), or a video already COMPLETE.
   * @throws VideoNotReadyError when the video is not COMPLETE; nothing is downloaded.
   * @throws DownloadIntegrityError when what arrived is not the video (`reason`, `videoId`, `requestId`).
   */
  async download(video: string | Video, path: string, options?: DownloadOptions): Promise<DownloadResult> {
    const method = 'videos.download';
    videoIdOf(method, video);
    checkArgument(method, 'path', path, pathTo("the file to save to, e.g. 'video.mp4'"));
    return downloadVideo(this.#api, this.#context, video, path, checkOptions(method, options));
  }

  /**
   * Create a video, wait for it and save it to `output`: the whole workflow in one call.
   * `output` is checked before anything is created (its folder exists and is writable, it is not a folder).
   * Every error after the create carries the job's `videoId` and names the call that goes on with it: if saving
   * fails, the video is still COMPLETE on the service, so `download(id, output)` can be tried again without paying twice.
   * Like `createAndWait`, it shares the client's limit on jobs running at once: `Promise.all` of many calls starts
   * 2 jobs, then more as the service accepts them (`jobLimit: 'external'` leaves that to a queue of your own).
   * A job that ends FAILED for a rate limit or a fault of the service is created again, as a batch's item is
   * (`maxJobAttempts`, 3 jobs at most). For a worker that may crash: store the id in `onCreated`, and take the job up again with `videoId`.
   * @throws OutputPathError when `output` cannot be saved to; no request is sent.
   * @throws InvalidArgumentError for a `videoId` that is not an id or an unknown `jobLimit`; no request is sent.
   */
  async generate(params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult> {
    const method = 'videos.generate';
    return generate(this.#api, this.#context, checkParams(method, params), checkOptions(method, options, "{ output: 'video.mp4' }"));
  }

  /**
   * Make a video of any length: audio over `maxSegmentSeconds` is split at quiet points, the segments are
   * generated side by side (each job under the client's one limit, `jobConcurrency`), and their MP4s are joined without re-encoding. A manifest in `workDir`
   * records every job, so running the same call again after a crash, an abort or a failed segment resumes
   * without paying twice. Audio no longer than `maxSegmentSeconds` (the client's `limits.maxAudioSeconds`, 60 s unless
   * configured, as in a batch) is one ordinary `generate`. `onRunProgress` reports the run's phases and segments. `output` and `workDir` are checked
   * before anything is created; every error after a create carries a job's `videoId` and names the jobs made.
   * @throws OutputPathError when `output` or `workDir` cannot be saved to; no request is sent.
   */
  async generateLong(params: VideoCreateParams, options: GenerateLongOptions): Promise<GenerateLongResult> {
    const method = 'videos.generateLong';
    const checked = checkOptions(method, options, "{ output: 'long.mp4' }");
    return generateLong(this.#api, this.#context, checkParams(method, params), checked);
  }

  /**
   * Make many videos, one per item, each saved as `<outputDir>/<key>.mp4`. `outputDir` and every item are checked
   * before any job is created (`OutputPathError`; all item problems at once, as `BatchInputError`). An item whose
   * audio is longer than one job allows is made as `generateLong` makes it, its segments' jobs listed in its
   * result's `segmentVideoIds`. Jobs run as many at once as the client's limit lets (`jobConcurrency`, shared with
   * its other calls); a job FAILED for a rate limit or a fault of the service is created again (`maxJobAttempts`). A ledger in `outputDir` makes the call resumable: after a crash or
   * an abort, run it again over the same folder and no job is paid for twice. Items that fail are reported in the summary; they do not stop the batch.
   */
  async generateBatch(items: Iterable<BatchItem> | AsyncIterable<BatchItem>, options: GenerateBatchOptions): Promise<BatchSummary> {
    const method = 'videos.generateBatch';
    checkArgument(method, 'items', items, ITERABLE);
    const checked = checkOptions(method, options, "{ outputDir: 'videos' }");
    checkArgument(method, 'outputDir', checked.outputDir, pathTo("the folder to save to, e.g. 'videos'"));
    return generateBatch(this.#api, this.#context, items, checked, generateLong);
  }
}
