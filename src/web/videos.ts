import type { Answer, APIPromise } from '../internal/api-promise.js';
import { checkOptions, refuseOption, videoIdOf } from '../internal/arguments.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Transport } from '../internal/transport.js';
import type { CreateOptions, JobContext } from '../lib/endpoints.js';
import { type CreateAndWaitOptions, createAndWait, MAX_RETRIES_APPLIES } from '../lib/generate.js';
import { checkParams } from '../lib/media/prepare.js';
import { type PollOptions, type PollResult, type PollState, pollVideo } from '../lib/poll.js';
import { type WaitOptions, waitForVideo } from '../lib/wait.js';
import { type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
import { VideoEndpoints } from '../resources/endpoints.js';
import type { Video } from '../schemas.js';
import type { VideoCreateParams } from './params.js';
import type { VideoContent } from './runtime/content.js';

/**
 * `client.videos` of the web entry: the endpoint methods of `/v1/videos` and the waits built on them, over `fetch`.
 * What needs a filesystem (`download`, `generate`, `generateLong`, `generateBatch`) is Node's, Bun's and Deno's only.
 */
export class Videos {
  readonly #transport: Transport;
  readonly #api: VideoEndpoints;
  readonly #context: JobContext;
  /** Behind avatar-video/proxy (a browser): the content address is asked as JSON, a page cannot read a redirect. */
  readonly #proxied: boolean;

  /** @internal Built by the client, which owns the transport. */
  static build(transport: Transport, limits: { maxAudioSeconds: number }, limiter: ConcurrencyLimiter, proxied: boolean): Videos {
    return new Videos(transport, limits, limiter, proxied);
  }

  private constructor(transport: Transport, limits: { maxAudioSeconds: number }, limiter: ConcurrencyLimiter, proxied: boolean) {
    this.#transport = transport;
    this.#api = new VideoEndpoints(transport, limits);
    const { logger, timeout, maxRetryDelay } = transport;
    this.#context = { logger, timeout, maxRetryDelay, limiter, limits };
    this.#proxied = proxied;
  }

  /**
   * Start a video job from a driving audio file and one visual reference, given as a `Blob`/`File`, a `Uint8Array`,
   * an `ArrayBuffer` or a `ReadableStream`. Inputs are checked locally first (formats from their bytes, durations
   * measured), so a bad file fails with every problem listed before any upload. A stream is read into memory first.
   * A refused create that started no job is sent again, up to `maxRetries` times; one that may have reached the
   * server is not.
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
   * List videos, newest first unless `order: 'asc'`. Await it for one page, or iterate it to walk every page.
   * Behind avatar-video/proxy, listing is refused unless the proxy's `authorize` allows it.
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
   * Stream the MP4 of a COMPLETE video as a web `ReadableStream` (for a `Response`, or R2). The key is never sent to
   * the file's host. The bytes are not verified: they are whatever the file host sends.
   * @param video An id, or a video (its `id` is used).
   */
  content(video: string | Video, options?: RequestOptions): APIPromise<VideoContent> {
    const method = 'videos.content';
    // The web build gives the endpoints lib/content.ts's web twin, whose body is the web stream VideoContent says.
    return this.#transport.promise(async () => {
      const id = videoIdOf(method, video);
      const checked = checkOptions(method, options);
      if (!this.#proxied) return this.#api.content(id, checked) as Promise<never>;
      const { data: url } = await this.#api.signedAddress(id, checked);
      return this.#api.fileContent(new URL(url), checked) as Promise<never>;
    });
  }

  /**
   * The signed address of a COMPLETE video's file, for a `<video>` tag or another service; nothing is sent to the
   * file host. In a browser it is asked of avatar-video/proxy as JSON (`accept: application/json`), as a page cannot
   * read a redirect. The address is a secret of its own and may expire: ask again rather than storing it.
   * @param video An id, or a video (its `id` is used).
   */
  contentURL(video: string | Video, options?: RequestOptions): APIPromise<string> {
    const method = 'videos.contentURL';
    return this.#transport.promise(() => {
      const id = videoIdOf(method, video);
      const checked = checkOptions(method, options);
      return this.#proxied ? this.#api.signedAddress(id, checked) : this.#api.contentURL(id, checked);
    });
  }

  /**
   * Poll a job until it is COMPLETE and return it, polls timed from the job's progress.
   * @throws VideoFailedError when the job FAILED; VideoCancelledError when CANCELLED; WaitTimeoutError after
   * `waitTimeout` (the job keeps running); APIUserAbortError when `signal` fires.
   */
  async waitForCompletion(video: string | Video, options?: WaitOptions): Promise<Video> {
    const method = 'videos.waitForCompletion';
    return waitForVideo(this.#api, this.#context, videoIdOf(method, video), checkOptions(method, options));
  }

  /**
   * One step of `waitForCompletion`, for a process that cannot wait minutes (a Worker's request, a Durable Object's
   * alarm): retrieve the job once and say when to poll next. Pass the returned `state` to the next call.
   */
  async poll(video: string | Video, state?: PollState, options?: PollOptions): Promise<PollResult> {
    const method = 'videos.poll';
    return pollVideo(this.#api, videoIdOf(method, video), state, checkOptions(method, options));
  }

  /**
   * `create`, then `waitForCompletion`. Every error after the create carries the job's `videoId`. Jobs of one client
   * share its limit on jobs running at once; a job FAILED for a rate limit or a fault of the service is made again
   * (`maxJobAttempts`).
   */
  async createAndWait(params: VideoCreateParams, options?: CreateAndWaitOptions): Promise<Video> {
    const method = 'videos.createAndWait';
    const checked = refuseOption(method, checkOptions(method, options), 'maxRetries', MAX_RETRIES_APPLIES);
    return createAndWait(this.#api, this.#context, checkParams(method, params), checked);
  }
}
