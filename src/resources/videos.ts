import type { Answer, APIPromise } from '../internal/api-promise.js';
import { checkOptions, refuseOption, videoIdOf } from '../internal/arguments.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Transport } from '../internal/transport.js';
import type { CreateOptions, JobContext } from '../lib/endpoints.js';
import { type CreateAndWaitOptions, createAndWait, MAX_RETRIES_APPLIES } from '../lib/generate.js';
import { checkParams, type VideoCreateParams } from '../lib/media/prepare.js';
import { type PollOptions, type PollResult, type PollState, pollVideo } from '../lib/poll.js';
import { type WaitOptions, waitForVideo } from '../lib/wait.js';
import { checkListParams, type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
import type { Video } from '../schemas.js';
import type { VideoEndpoints } from './endpoints.js';

export type { CreateOptions } from '../lib/endpoints.js';

/** Options of `videos.contentURL`. */
export type ContentURLOptions = RequestOptions;

/** @internal What the client builds a `Videos` from: its transport, the endpoints over it, and whether it has no key. */
export interface VideosParts {
  transport: Transport;
  api: VideoEndpoints;
  /** The client's state the workflows of lib/ take beside the calls. */
  context: JobContext;
  /** Behind avatar-video/proxy (a page, no key): the content address is asked as JSON, a page cannot read a redirect. */
  proxied: boolean;
}

/**
 * `client.videos` on every runtime: the endpoint methods of `/v1/videos`, and the waits built on them. `Params` are the
 * runtime's create parameters (paths and Node streams on Node, bytes on the web), `Content` its streamed video.
 * Every endpoint method returns an `APIPromise`: await it for the result, or call `.withResponse()` for the request
 * id, status and headers. Every method checks its arguments before any request: one missing or of the wrong kind (no
 * options where some are needed, a `timeout` that is not a number) rejects with an `InvalidArgumentError` that says
 * what to pass.
 */
export class VideoCalls<Params extends object, Content> {
  readonly #transport: Transport;
  /** The endpoints: what every method below calls, and the one port of calls the workflows of lib/ take. */
  readonly #api: VideoEndpoints;
  /** What the workflows of lib/ know of the client besides its calls: its limit on jobs, limits, logger, defaults. */
  readonly #context: JobContext;
  readonly #proxied: boolean;

  // Typed `unknown`: the published types show no internal type. The client builds it (VideosParts).
  protected constructor(parts: unknown) {
    const { transport, api, context, proxied } = parts as VideosParts;
    this.#transport = transport;
    this.#api = api;
    this.#context = context;
    this.#proxied = proxied;
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
  create(params: Params, options?: CreateOptions): APIPromise<Video> {
    const method = 'videos.create';
    return this.#transport.promise(() => this.#api.create(checkParams(method, params as VideoCreateParams), checkOptions(method, options)));
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
      const query = checkListParams(params);
      checkOptions('videos.list', options);
      const answer = await this.#api.list(query, options);
      return { ...answer, data: VideoPage.build(answer.data, query, next) };
    };
    return VideoPagePromise.build(this.#transport.promise(first));
  }

  /**
   * Stream the MP4 of a COMPLETE video: a Node stream on Node, Bun and Deno, a web `ReadableStream` on the web (for
   * a `Response`, or R2). The redirect is followed here, and the key is not sent to the file's host. On Node, use
   * `download` to save to a file; this is for piping elsewhere. Unlike `download`, the bytes are NOT verified: they
   * are whatever the file host sends, as it sends them. Behind avatar-video/proxy (a page), the file's address is
   * asked of the proxy as JSON first.
   * @param video An id, or a video (its `id` is used).
   */
  content(video: string | Video, options?: RequestOptions): APIPromise<Content> {
    const method = 'videos.content';
    return this.#transport.promise(async () => {
      const id = videoIdOf(method, video);
      const checked = checkOptions(method, options);
      const answer = this.#proxied
        ? await this.#api.fileContent(new URL((await this.#api.signedAddress(id, checked)).data), checked)
        : await this.#api.content(id, checked);
      // The platform made the body: the runtime's own stream, which `Content` names.
      return answer as Answer<Content>;
    });
  }

  /**
   * The signed address of a COMPLETE video's file, for a `<video>` tag, a player or another service: the
   * content redirect is resolved and nothing is sent to the file host. The address is a secret of its own
   * (anyone holding it can fetch the video) and may expire: ask again rather than storing it. In a browser it is asked
   * of avatar-video/proxy as JSON (`accept: application/json`), as a page cannot read a redirect.
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
  async createAndWait(params: Params, options?: CreateAndWaitOptions): Promise<Video> {
    const method = 'videos.createAndWait';
    const checked = refuseOption(method, checkOptions(method, options), 'maxRetries', MAX_RETRIES_APPLIES);
    return createAndWait(this.#api, this.#context, checkParams(method, params as VideoCreateParams), checked);
  }
}
