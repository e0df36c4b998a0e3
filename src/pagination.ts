import { AvatarVideoError } from './errors.js';
import type { Video, VideoListEnvelope } from './schemas.js';

/** Query parameters of `videos.list`. The spec does not define them; they are passed through as given. */
export interface VideoListParams {
  /** Page size, if the service supports it. */
  limit?: number;
  /** Return videos after this id (cursor from a previous page's `last_id`). */
  after?: string;
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor?: string;
  [key: string]: string | number | boolean | undefined;
}

type FetchPage = (params: VideoListParams) => Promise<VideoListEnvelope>;

/** One page of videos. Iterate it with `for await` to walk this page and every later one. */
export class VideoPage implements AsyncIterable<Video> {
  readonly data: Video[];
  readonly has_more: boolean;
  readonly last_id: string | null;
  readonly next_cursor: string | null;
  readonly #params: VideoListParams;
  readonly #fetch: FetchPage;

  constructor(envelope: VideoListEnvelope, params: VideoListParams, fetch: FetchPage) {
    this.data = envelope.data;
    this.has_more = envelope.has_more;
    this.last_id = envelope.last_id;
    this.next_cursor = envelope.next_cursor;
    this.#params = params;
    this.#fetch = fetch;
  }

  hasNextPage(): boolean {
    return this.has_more && this.data.length > 0 && (this.next_cursor !== null || this.last_id !== null);
  }

  /** Parameters for the next page: `cursor` when the service gave one, else `after` the last id. */
  nextPageParams(): VideoListParams | null {
    if (!this.hasNextPage()) return null;
    const { cursor: _cursor, after: _after, ...rest } = this.#params;
    return this.next_cursor !== null ? { ...rest, cursor: this.next_cursor } : { ...rest, after: this.last_id ?? undefined };
  }

  async getNextPage(): Promise<VideoPage> {
    const params = this.nextPageParams();
    if (!params) throw new AvatarVideoError('No next page: check hasNextPage() first.');
    return new VideoPage(await this.#fetch(params), params, this.#fetch);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Video> {
    let page: VideoPage = this;
    const seen = new Set<string>();
    for (;;) {
      yield* page.data;
      const next = page.nextPageParams();
      if (!next) return;
      const key = JSON.stringify(next);
      // A server that hands back the same cursor twice would loop forever; stop loudly instead.
      if (seen.has(key)) throw new AvatarVideoError(`The list endpoint repeated a cursor (${key}); stopping to avoid an endless loop.`);
      seen.add(key);
      page = await page.getNextPage();
    }
  }
}

/** What `videos.list()` returns: await it for the first page, or `for await` it for every video. */
export class VideoPagePromise implements PromiseLike<VideoPage>, AsyncIterable<Video> {
  readonly #page: Promise<VideoPage>;
  constructor(page: Promise<VideoPage>) {
    this.#page = page;
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
