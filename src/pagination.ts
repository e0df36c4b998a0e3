import { AvatarVideoError } from './errors.js';
import type { APIPromise, APIResponse } from './internal/api-promise.js';
import { checkArgument, checkOptions, isFilled, isWhole, type Rule } from './internal/arguments.js';
import type { Video, VideoListEnvelope } from './schemas.js';

/** The service's page size when `limit` is not sent. */
const DEFAULT_LIMIT = 20;

/** The largest `limit` of a list page the service accepts. */
const MAX_LIMIT = 100;

/** The list query's rules: what the service would answer 422 for, refused before any request. */
const LIST_RULES: Record<string, Rule> = {
  limit: [(n) => isWhole(n) && n >= 1 && n <= MAX_LIMIT, `a whole number from 1 to ${MAX_LIMIT}`],
  order: [(o) => o === 'asc' || o === 'desc', "'asc' or 'desc'"],
  after: [isFilled, 'a video id'],
};

/** @internal `params` of `videos.list`, checked against {@link LIST_RULES}: an InvalidArgumentError names the one wrong. */
export function checkListParams(params: VideoListParams | undefined): VideoListParams {
  const query = checkOptions('videos.list', params, undefined, 'params');
  for (const [name, rule] of Object.entries(LIST_RULES)) {
    const value = (query as Record<string, unknown>)[name];
    if (value !== undefined) checkArgument('videos.list', name, value, rule);
  }
  return query;
}

/** Query parameters of `videos.list`. */
export interface VideoListParams {
  /**
   * Videos per page, a whole number from 1 to 100. Iterating the list walks every page whatever its size.
   * @default 20
   */
  limit?: number | undefined;
  /**
   * Start strictly after the video with this id, in the `order` asked (e.g. the last id of a previous page).
   * @default undefined (from the first video)
   */
  after?: string | undefined;
  /**
   * `desc` lists the newest first, `asc` the oldest first.
   * @default 'desc'
   */
  order?: 'asc' | 'desc' | undefined;
  /**
   * Opaque cursor from a previous page's `next_cursor`, for a service that sends one (the SDK sets it while walking).
   * @default undefined
   */
  cursor?: string | undefined;
}

type FetchPage = (params: VideoListParams) => Promise<VideoListEnvelope>;

/** One page of videos. Iterate it with `for await` to walk this page and every later one. */
export class VideoPage implements AsyncIterable<Video> {
  /** The videos of this page, in the order asked. */
  readonly data: Video[];
  /**
   * Whether the service said more pages follow; `null` when it did not say. The service answers a bare
   * array, so this is `null` there: use `hasNextPage()`, which then judges by the page's length.
   */
  readonly has_more: boolean | null;
  /** Id of this page's last video (or the one the service named): the next page starts after it. */
  readonly last_id: string | null;
  /** Cursor of the next page, when the service sends one (the real service does not). */
  readonly next_cursor: string | null;
  readonly #params: VideoListParams;
  readonly #fetch: FetchPage;

  /** @internal Built by `videos.list`, which fetches the pages. */
  static build(envelope: VideoListEnvelope, params: VideoListParams, fetch: FetchPage): VideoPage {
    return new VideoPage(envelope, params, fetch);
  }

  // Private, and built through `build` above: the published type shows no constructor, nor the types it takes.
  private constructor(envelope: VideoListEnvelope, params: VideoListParams, fetch: FetchPage) {
    this.data = envelope.data;
    this.has_more = envelope.has_more;
    this.last_id = envelope.last_id;
    this.next_cursor = envelope.next_cursor;
    this.#params = params;
    this.#fetch = fetch;
  }

  /**
   * Whether another page is worth asking for. Without `has_more` (a bare array), a page as long as the
   * `limit` asked may have more behind it, so this is true, and that next page may turn out empty;
   * a shorter page is the last.
   */
  hasNextPage(): boolean {
    if (this.data.length === 0 || (this.next_cursor === null && this.last_id === null)) return false;
    if (this.has_more !== null) return this.has_more;
    return this.data.length >= (this.#params.limit ?? DEFAULT_LIMIT);
  }

  /** Parameters for the next page: `cursor` when the service gave one, else `after` the last id; `order` and `limit` kept. */
  nextPageParams(): VideoListParams | null {
    if (!this.hasNextPage()) return null;
    const { cursor: _cursor, after: _after, ...rest } = this.#params;
    return this.next_cursor !== null ? { ...rest, cursor: this.next_cursor } : { ...rest, after: this.last_id ?? undefined };
  }

  async getNextPage(): Promise<VideoPage> {
    const params = this.nextPageParams();
    if (!params) throw new AvatarVideoError('No next page: check hasNextPage() first.');
    return VideoPage.build(await this.#fetch(params), params, this.#fetch);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Video> {
    let page: VideoPage = this;
    const seen = new Set<string>();
    for (;;) {
      yield* page.data;
      const next = page.nextPageParams();
      if (!next) return;
      const key = JSON.stringify(next);
      // A server that hands back the same cursor twice (or ignores `after`) would loop forever; stop loudly instead.
      if (seen.has(key)) throw new AvatarVideoError(`The list endpoint repeated a cursor (${key}); stopping to avoid an endless loop.`);
      seen.add(key);
      page = await page.getNextPage();
    }
  }
}

/**
 * What `videos.list()` returns: await it for the first page, `for await` it for every video, or call
 * `withResponse()` for the first page with its request id, status and headers.
 */
export class VideoPagePromise implements PromiseLike<VideoPage>, AsyncIterable<Video> {
  readonly #page: APIPromise<VideoPage>;
  /** @internal Built by `videos.list`. */
  static build(page: APIPromise<VideoPage>): VideoPagePromise {
    return new VideoPagePromise(page);
  }

  private constructor(page: APIPromise<VideoPage>) {
    this.#page = page;
  }
  /** The first page with the response it came in. */
  withResponse(): Promise<APIResponse<VideoPage>> {
    return this.#page.withResponse();
  }
  // biome-ignore lint/suspicious/noThenProperty: deliberately awaitable, like a Promise of the first page.
  then<A = VideoPage, B = never>(
    onFulfilled?: ((page: VideoPage) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#page.then(onFulfilled, onRejected);
  }
  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<VideoPage | B> {
    return this.#page.catch(onRejected);
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Video> {
    yield* await this.#page;
  }
}
