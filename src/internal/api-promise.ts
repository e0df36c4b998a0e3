import { type RawHeaders, requestId } from './headers.js';

/** A call's result with the response it came in: `await client.videos.retrieve(id).withResponse()`. */
export interface APIResponse<T> {
  /** What awaiting the call gives. */
  data: T;
  /** The service's id for the request (`x-request-id`), which its support can look up; undefined when not sent. */
  requestId: string | undefined;
  /** HTTP status of the response. */
  status: number;
  /**
   * Response headers, names lowercased, as on `APIError.headers`: credential headers read `[redacted]` and the
   * key is removed from every other value.
   */
  headers: Record<string, string>;
}

/** A parsed answer with the raw response it came in, as the transport returns it (not exported from the package). */
export interface Answer<T> {
  data: T;
  status: number;
  headers: RawHeaders;
}

/** The executor of the base Promise, which is never read: `then` below reads the answer instead. */
const settledEmpty = (resolve: (value: never) => void) => resolve(undefined as never);

/**
 * What every API method returns: a Promise of its result, plus `withResponse()` for the request id, status and
 * headers. Both read the one request the call made; the headers are only redacted when asked for.
 */
export class APIPromise<T> extends Promise<T> {
  readonly #answer: Promise<Answer<T>>;
  readonly #redact: (headers: RawHeaders) => Record<string, string>;
  #data: Promise<T> | undefined;

  /** @internal Built by the transport, which owns the key the headers are redacted of. */
  static build<T>(answer: Promise<Answer<T>>, redact: (headers: RawHeaders) => Record<string, string>): APIPromise<T> {
    return new APIPromise(answer, redact);
  }

  // Private, and built through `build` above: the published type then shows neither a constructor users cannot call
  // nor Promise's, which this one does not take.
  private constructor(answer: Promise<Answer<T>>, redact: (headers: RawHeaders) => Record<string, string>) {
    super(settledEmpty);
    this.#answer = answer;
    this.#redact = redact;
  }

  /** The result together with the response it came in. */
  async withResponse(): Promise<APIResponse<T>> {
    const { data, status, headers } = await this.#answer;
    return { data, requestId: requestId(headers), status, headers: this.#redact(headers) };
  }

  #result(): Promise<T> {
    // Derived once and only when awaited, so a call used only through withResponse() adds no rejection of its own.
    this.#data ??= this.#answer.then((answer) => answer.data);
    return this.#data;
  }

  // `any` reasons, as Promise's own signatures have: `p.catch((e) => e.code)` must compile as it did.
  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass whose result is read from the answer.
  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: Promise's signature.
    onRejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result().then(onFulfilled, onRejected);
  }

  /** Plain promises for what `catch` and `finally` derive (they call `then` above): not APIPromises of nothing. */
  static override get [Symbol.species]() {
    return Promise;
  }
}
