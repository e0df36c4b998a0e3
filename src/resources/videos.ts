import { PassThrough, type Readable } from 'node:stream';
import { VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import type { StreamOptions, Transport } from '../internal/http-client.js';
import { encodeMultipart } from '../internal/multipart.js';
import { checkOutputPath } from '../internal/output-path.js';
import { apiPath } from '../internal/path.js';
import type { RequestOptions } from '../internal/request-options.js';
import { header } from '../internal/transport.js';
import { generateBatch } from '../lib/batch/generate-batch.js';
import type { BatchItem, BatchSummary, GenerateBatchOptions } from '../lib/batch/types.js';
import { type DownloadOptions, type DownloadResult, downloadVideo } from '../lib/download.js';
import { type CreateAndWaitOptions, type GenerateOptions, type GenerateResult, splitCreateAndWait } from '../lib/generate.js';
import { type JobStage, namingJob, nextCall } from '../lib/job-error.js';
import { type GenerateLongOptions, type GenerateLongResult, generateLong } from '../lib/long/generate-long.js';
import { prepareUnchecked, type VideoCreateParams } from '../lib/media/prepare.js';
import { prepareValidated } from '../lib/media/validate.js';
import { pollHint } from '../lib/poll-hint.js';
import { type SeenVideo, type WaitOptions, waitForVideo } from '../lib/wait.js';
import { checkListParams, type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
import { normaliseList, type Video, VideoListSchema, VideoSchema } from '../schemas.js';

export interface CreateOptions extends RequestOptions {
  /** Check formats and durations locally before uploading. @default true */
  validate?: boolean;
}

/** The MP4 of a finished video, as a stream. */
export interface VideoContent {
  /** The file's bytes. Consume or destroy it: it holds a connection until then. */
  body: Readable;
  /** Size in bytes, when the server said. */
  contentLength: number | undefined;
  contentType: string | undefined;
  /** The final URL after redirects (a signed CDN address: treat it as a secret of its own). */
  url: string;
}

/** Options of `videos.contentURL`. */
export type ContentURLOptions = RequestOptions;

/** Endpoint methods of `/v1/videos`. */
export class Videos {
  readonly #transport: Transport;
  readonly #limits: { maxAudioSeconds: number };
  readonly #limiter: ConcurrencyLimiter;

  /** @internal Built by the client, which owns the transport. */
  constructor(transport: Transport, limits: { maxAudioSeconds: number }, limiter: ConcurrencyLimiter) {
    this.#transport = transport;
    this.#limits = limits;
    this.#limiter = limiter;
  }

  /**
   * Start a video job from a driving audio file and one visual reference.
   * Inputs are checked locally first (formats from their bytes, durations measured), so a bad file
   * fails in milliseconds with every problem listed, before any upload. Not retried once it may have reached the server: a duplicate job would be billed twice.
   */
  async create(params: VideoCreateParams, options: CreateOptions = {}): Promise<Video> {
    return (await this.#createJob(params, options)).video;
  }

  /** `create`, also returning the poll hint its answer carried, so a wait that follows can honour it. */
  async #createJob(params: VideoCreateParams, options: CreateOptions): Promise<SeenVideo> {
    // Validation opens (and for one-shot streams, spools) the inputs once; the same sources are uploaded.
    const prepared = options.validate === false ? await prepareUnchecked(params) : await prepareValidated(params, this.#limits);
    let hint: number | undefined;
    try {
      const video = await this.#transport.request(
        {
          method: 'POST',
          path: 'v1/videos',
          kind: 'create',
          body: () => encodeMultipart(prepared.files, prepared.fields),
          onHeaders: (headers) => {
            hint = pollHint(headers);
          },
        },
        VideoSchema,
        options,
      );
      // Accepted: the jobs running fit. (Each refusal, a 429, reaches the limiter from the transport, once.)
      this.#limiter.admitted();
      return { video, hint };
    } finally {
      await prepared.dispose();
    }
  }

  /** Read a job's current state. */
  async retrieve(id: string, options?: RequestOptions): Promise<Video> {
    return this.#transport.request({ method: 'GET', path: apiPath`v1/videos/${id}`, kind: 'read' }, VideoSchema, options);
  }

  /**
   * List videos, newest first unless `order: 'asc'`. Await it for one page, or iterate it to walk every page:
   * `for await (const video of client.videos.list()) { ... }`. Each later page is asked `after` the last id
   * seen, with the same `order` and `limit`.
   * @throws InvalidArgumentError for a `limit` that is not a whole number from 1 to 100, or an `order`
   * other than `asc` or `desc`; nothing is requested.
   */
  list(params: VideoListParams = {}, options?: RequestOptions): VideoPagePromise {
    // `{ ...query }`: the params as the plain record the transport's query takes.
    const fetchPage = async (query: VideoListParams) =>
      normaliseList(
        await this.#transport.request({ method: 'GET', path: 'v1/videos', query: { ...query }, kind: 'read' }, VideoListSchema, options),
      );
    const first = async () => {
      checkListParams(params);
      return new VideoPage(await fetchPage(params), params, fetchPage);
    };
    return new VideoPagePromise(first());
  }

  /**
   * Stream the MP4 of a COMPLETE video. The redirect is followed here, and the key is not sent to the
   * file's host. Use `download` to save to a file; this is for piping elsewhere. Unlike `download`, the
   * bytes are NOT verified: they are whatever the file host sends, as it sends them.
   */
  async content(id: string, options: RequestOptions = {}): Promise<VideoContent> {
    const transport = this.#transport;
    const response = await this.#askForContent(id, options, (start, settings) => transport.get(start, settings));
    const length = Number(header(response.headers, 'content-length'));
    const body = withSDKErrors(
      response.body,
      (error) => transport.connectionError(error, options.signal, response.timedOut()),
      response.done,
    );
    return {
      body,
      contentLength: Number.isFinite(length) ? length : undefined,
      contentType: header(response.headers, 'content-type'),
      url: response.url.href,
    };
  }

  /**
   * The signed address of a COMPLETE video's file, for a `<video>` tag, a player or another service: the
   * content redirect is resolved and nothing is sent to the file host. The address is a secret of its own
   * (anyone holding it can fetch the video) and may expire: ask again rather than storing it.
   */
  async contentURL(id: string, options: ContentURLOptions = {}): Promise<string> {
    const url = await this.#askForContent(id, options, (start, settings) => this.#transport.resolveRedirect(start, settings));
    return url.href;
  }

  /** Ask the content endpoint of `id` for the MP4, with the read retries: `ask` follows or resolves the redirect. */
  #askForContent<T>(id: string, options: RequestOptions, ask: (start: URL, settings: StreamOptions) => Promise<T>): Promise<T> {
    const start = this.#transport.url(apiPath`v1/videos/${id}/content`);
    const settings = { headers: { ...options.headers, accept: 'video/mp4, */*' }, timeout: options.timeout, signal: options.signal };
    return this.#transport.withRetries('read', options, () => ask(start, settings));
  }

  /**
   * Poll a job until it is COMPLETE and return it. Polls are timed from the job's progress: sparse while its
   * end is far, a quarter of `pollInterval` apart near it; without usable progress they back off from
   * `pollInterval` to `maxPollInterval`. `onProgress` gets the estimated `etaSeconds`. A transient error (5xx, 429, a dropped connection) does not end the
   * wait; 401, 403 and 404 do.
   * @throws VideoFailedError when the job FAILED (`code`, `message`, `isRateLimited`).
   * @throws VideoCancelledError when the job was CANCELLED.
   * @throws WaitTimeoutError after `waitTimeout`, with the last state seen. The job keeps running.
   * @throws APIUserAbortError when `signal` fires.
   */
  waitForCompletion(id: string, options?: WaitOptions): Promise<Video> {
    return waitForVideo(this.#transport, id, options);
  }

  /**
   * `create`, then `waitForCompletion`. Every error after the create carries the job's `videoId`, and its message
   * names the job and, while it may still run, the call that waits for it again.
   * `timeout` and the other request options apply to the create (a large upload may need a longer `timeout`);
   * `waitTimeout` bounds the wait. Jobs of one client share one adaptive limit on how many run at once (it starts
   * at 2 and grows while the service keeps up): a call beyond it waits for a place before creating anything, and
   * that wait counts against neither `timeout` nor `waitTimeout`. When the wait stops for another reason (an
   * abort, a 401), a warning names the job, which keeps running on the service.
   */
  async createAndWait(params: VideoCreateParams, options: CreateAndWaitOptions = {}): Promise<Video> {
    return this.#createAndWait(params, options, 'running');
  }

  /** `createAndWait`, whose errors after the create name the job and the call that goes on from `stage`. */
  #createAndWait(params: VideoCreateParams, options: CreateAndWaitOptions, stage: JobStage): Promise<Video> {
    const { create, wait } = splitCreateAndWait(options);
    // A place under the client's limiter covers the job's life, create to end.
    return this.#limiter.run(
      async () => {
        const created = await this.#createJob(params, create);
        const { id } = created.video;
        try {
          return await waitForVideo(this.#transport, id, wait, created);
        } catch (error) {
          // A job error carries the video; any other (an abort, a 401) must not leave the paid job unnamed.
          if (!(error instanceof VideoFailedError || error instanceof VideoCancelledError || error instanceof WaitTimeoutError)) {
            this.#transport.logger.warn(
              `video ${id} was created, but the wait for it stopped (${(error as Error).message}); the job may still be running on the service: wait for it again by its id`,
            );
          }
          throw namingJob(error, id, nextCall(id, stage));
        }
      },
      { signal: options.signal },
    );
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
  download(video: string | Video, path: string, options?: DownloadOptions): Promise<DownloadResult> {
    return downloadVideo(this.#transport, (id, opts) => this.retrieve(id, opts), video, path, options);
  }

  /**
   * Create a video, wait for it and save it to `output`: the whole workflow in one call.
   * `output` is checked before anything is created (its folder exists and is writable, it is not a folder).
   * Every error after the create carries the job's `videoId` and names the call that goes on with it: if saving
   * fails, the video is still COMPLETE on the service, so `download(id, output)` can be tried again without paying twice.
   * Like `createAndWait`, it shares the client's limit on jobs running at once: `Promise.all` of many calls starts
   * 2 jobs, then more as the service accepts them.
   * @throws OutputPathError when `output` cannot be saved to; no request is sent.
   */
  async generate(params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult> {
    const { output, onDownloadProgress, ...createAndWait } = options;
    await checkOutputPath(output);
    const video = await this.#createAndWait(params, createAndWait, 'running-then-save');
    try {
      const { signal, timeout, maxRetries } = options;
      const { path, bytes } = await this.download(video, output, { signal, timeout, maxRetries, onProgress: onDownloadProgress });
      return { video, path, bytes };
    } catch (error) {
      this.#transport.logger.warn(`video ${video.id} is COMPLETE but saving it failed; call videos.download('${video.id}', ...) to retry`);
      throw namingJob(error, video.id, nextCall(video.id, 'complete'));
    }
  }

  /**
   * Make a video of any length: audio over `maxSegmentSeconds` is split at quiet points, the segments are
   * generated `concurrency` at a time, and their MP4s are joined without re-encoding. A manifest in `workDir`
   * records every job, so running the same call again after a crash, an abort or a failed segment resumes
   * without paying twice. Audio of 60 s or less is one ordinary `generate`. `output` and `workDir` are checked
   * before anything is created; every error after a create carries a job's `videoId` and names the jobs made.
   * @throws OutputPathError when `output` or `workDir` cannot be saved to; no request is sent.
   */
  generateLong(params: VideoCreateParams, options: GenerateLongOptions): Promise<GenerateLongResult> {
    return generateLong(this, params, options, this.#limiter);
  }

  /**
   * Make many videos, one per item, each saved as `<outputDir>/<key>.mp4`. `outputDir` and every item are checked
   * before any job is created (`OutputPathError`; all item problems at once, as `BatchInputError`). An item whose
   * audio is longer than one job allows is made as `generateLong` makes it, its segments' jobs listed in its
   * result's `segmentVideoIds`. Jobs run as many at once as the service takes (`concurrency: 'auto'`); a job
   * FAILED for a rate limit is created again. A ledger in `outputDir` makes the call resumable: after a crash or
   * an abort, run it again over the same folder and no job is paid for twice. Items that fail are reported in the summary; they do not stop the batch.
   */
  generateBatch(items: Iterable<BatchItem> | AsyncIterable<BatchItem>, options: GenerateBatchOptions): Promise<BatchSummary> {
    return generateBatch({ videos: this, limiter: this.#limiter, limits: this.#limits }, items, options);
  }
}

/** Re-emit a body's failures as SDK errors (timeout, abort, connection) with the original as `cause`. */
function withSDKErrors(body: Readable, toSDKError: (error: unknown) => Error, done: () => void): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  body.on('error', (error) => out.destroy(toSDKError(error)));
  body.on('close', done);
  out.on('close', () => body.destroy());
  body.pipe(out);
  return out;
}
