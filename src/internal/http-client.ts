import pRetry from 'p-retry';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { APIUserAbortError, AvatarVideoError, RateLimitError, ResponseTooLargeError, ResponseValidationError } from '../errors.js';
import { describeIssues } from '../schemas.js';
import { throwForStatus } from './api-error.js';
import type { Logger } from './logger.js';
import { isSensitiveHeader, scrub, scrubValue } from './redact.js';
import { followRedirects, resolveRedirects, withoutCredentials } from './redirect.js';
import type { APIRequest, RequestOptions } from './request-options.js';
import { parseRetryAfter, type RequestKind, retryDelay, shouldRetry } from './retry.js';
import { sleep } from './sleep.js';
import {
  describeFailure,
  MAX_JSON_BYTES,
  type RawResponse,
  readText,
  release,
  requestId,
  type SentResponse,
  send,
  toConnectionError,
} from './transport.js';

export interface TransportOptions {
  apiKey: string;
  /** Validated, with a trailing slash. */
  baseURL: string;
  /** Extra headers for every API request (credential headers are dropped). */
  headers: Record<string, string> | undefined;
  /** The caller's dispatcher (a proxy agent); without one the transport keeps its own keep-alive pool. */
  dispatcher: Dispatcher | undefined;
  logger: Logger;
  debug: boolean;
  timeout: number;
  maxRetries: number;
  maxRetryDelay: number;
  /**
   * Told of every 429 answer to a create, once each, retried or not (the client's job limit learns from it), with
   * how long ago that attempt was sent: a refusal of a request sent before the limit was last cut is old news.
   */
  onCreateThrottled?: ((retryAfterMs: number | undefined, attemptAgeMs: number) => void) | undefined;
}

/** Per-call settings of a streamed GET. */
export interface StreamOptions {
  headers?: Record<string, string>;
  timeout?: number;
  signal?: AbortSignal | undefined;
}

/**
 * @internal The one HTTP path of the SDK, owned by the client and handed down to resources and helpers:
 * auth headers, retries, redirects that drop the key off the API origin, error mapping and scrubbing.
 * The key lives in a private field: nothing here returns it.
 */
export class Transport {
  readonly baseURL: string;
  readonly origin: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxRetryDelay: number;
  readonly logger: Logger;
  readonly #apiKey: string;
  /** Headers of every API request, built once (each request copies them). */
  readonly #headers: Readonly<Record<string, string>>;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #onCreateThrottled: TransportOptions['onCreateThrottled'];
  /** Whether debug lines are written: their strings are not even built otherwise. */
  readonly #debug: boolean;

  constructor(options: TransportOptions) {
    this.baseURL = options.baseURL;
    this.origin = new URL(options.baseURL).origin;
    this.timeout = options.timeout;
    this.maxRetries = options.maxRetries;
    this.maxRetryDelay = options.maxRetryDelay;
    this.logger = options.logger;
    this.#debug = options.debug;
    this.#apiKey = options.apiKey;
    this.#headers = Object.freeze({ ...safeHeaders(options.headers), 'x-api-key': options.apiKey });
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#onCreateThrottled = options.onCreateThrottled;
    // One keep-alive pool per client; downloads from one file host reuse its connections.
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  }

  /** Absolute URL of an API path (`v1/...`, relative to the base URL). */
  url(path: string, query?: APIRequest['query']): URL {
    // The base ends with '/', so appending equals resolving, at half the parsing cost.
    const url = new URL(this.baseURL + path.replace(/^\//, ''));
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** Release pooled connections (of the transport's own pool; a dispatcher passed in belongs to the caller). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Remove the key from foreign text. */
  scrub(text: string): string {
    return scrub(text, this.#apiKey);
  }

  /** Map a failure of a body read to the SDK's connection errors (key removed from the message). */
  connectionError(error: unknown, signal: AbortSignal | undefined, timedOut: boolean): Error {
    return toConnectionError(error, signal, timedOut, this.#apiKey);
  }

  /** The one request path for JSON: auth, retries, error mapping, a bounded read, parsing and validation. */
  async request<T extends z.ZodType>(request: APIRequest, schema: T, options: RequestOptions = {}): Promise<z.infer<T>> {
    const { response, text } = await this.withRetries(request.kind, options, (attempt) => this.#attempt(request, options, attempt));
    request.onHeaders?.(response.headers);
    return parseBody(schema, text, response, this.#apiKey);
  }

  /** Run `attempt` under the retry policy for `kind`. */
  withRetries<R>(kind: RequestKind, options: RequestOptions, attempt: (number: number) => Promise<R>): Promise<R> {
    const maxRetryDelay = options.maxRetryDelay ?? this.maxRetryDelay;
    let attemptSentAt = 0;
    const timedAttempt = (number: number) => {
      attemptSentAt = performance.now();
      return attempt(number);
    };
    return pRetry(timedAttempt, {
      retries: options.maxRetries ?? this.maxRetries,
      minTimeout: 0,
      maxTimeout: 0,
      // Every failed attempt, the last one included (shouldRetry is not asked once no retry is left).
      onFailedAttempt: ({ error }) => {
        if (kind === 'create' && error instanceof RateLimitError)
          this.#onCreateThrottled?.(error.retryAfter, performance.now() - attemptSentAt);
      },
      shouldRetry: async ({ error, retriesConsumed }) => {
        if (!shouldRetry(kind, describeFailure(error))) return false;
        const hint = (error as { headers?: Record<string, string> }).headers?.['retry-after'];
        const delay = retryDelay(retriesConsumed + 1, parseRetryAfter(hint), { maxRetryDelay });
        if (delay === undefined) return false;
        this.logger.info(`retrying in ${delay} ms after ${error.message}`);
        await sleep(delay, options.signal);
        return true;
      },
    }).catch((error: unknown) => {
      // p-retry rethrows the signal's reason when an abort lands between attempts.
      if (options.signal?.aborted && !(error instanceof AvatarVideoError)) {
        throw new APIUserAbortError('Request was aborted.', { cause: options.signal.reason });
      }
      throw error;
    });
  }

  /**
   * One streamed GET (no retries), following redirects; an error status becomes its APIError. The key goes
   * only to the API's origin: a URL elsewhere (a file host) gets none, and a redirect off the origin drops it.
   */
  async get(url: URL, options: StreamOptions = {}): Promise<SentResponse> {
    const response = await followRedirects(url, this.#follow(url, options));
    return throwForStatus(response, options.signal, this.#apiKey);
  }

  /** One GET of the API `url` that stops at the first address off the API's origin and returns it, unrequested. */
  resolveRedirect(url: URL, options: StreamOptions = {}): Promise<URL> {
    return resolveRedirects(url, this.#follow(url, options), async (response) => {
      await throwForStatus(response, options.signal, this.#apiKey);
      release(response);
      throw new AvatarVideoError(`${url.pathname} answered ${response.status} without redirecting to a file address.`);
    });
  }

  #follow(url: URL, options: StreamOptions) {
    const extra = safeHeaders(options.headers);
    // Off the API's origin (a resume straight at the file host) the key stays home, as on a redirect.
    const base = url.origin === this.origin ? this.#headers : withoutCredentials(this.#headers);
    const headers = { ...base, ...extra };
    const timeout = options.timeout ?? this.timeout;
    return { dispatcher: this.#dispatcher, headers, timeout, signal: options.signal, secret: this.#apiKey };
  }

  async #attempt(request: APIRequest, options: RequestOptions, attempt: number) {
    const body = request.body ? await request.body() : undefined;
    const url = this.url(request.path, request.query);
    const started = this.#debug ? performance.now() : 0;
    if (this.#debug) this.logger.debug(`${request.method} ${url.pathname}${url.search} (attempt ${attempt})`);
    const extra = body ? { ...options.headers, ...body.headers } : options.headers;
    // A fresh object per request: a dispatcher may add to it (ProxyAgent sets `host`).
    const headers = { ...this.#headers, ...safeHeaders(extra) };
    const signal = options.signal;
    const timeout = options.timeout ?? this.timeout;
    const response = await send(
      this.#dispatcher,
      { url, method: request.method, headers, body: body?.stream, timeout, signal },
      this.#apiKey,
    );
    if (response.status >= 300) await throwForStatus(response, signal, this.#apiKey);
    const { text, truncated } = await readText(response, signal, this.#apiKey, MAX_JSON_BYTES);
    if (this.#debug) {
      const id = requestId(response.headers);
      this.logger.debug(`${response.status} ${url.pathname} in ${Math.round(performance.now() - started)} ms${id ? ` [${id}]` : ''}`);
    }
    if (truncated) {
      throw new ResponseTooLargeError(`The answer from ${url.pathname} is larger than ${MAX_JSON_BYTES} bytes; it was not read.`, {
        limit: MAX_JSON_BYTES,
        requestId: requestId(response.headers),
      });
    }
    return { response, text };
  }
}

/** Caller headers without credential names (the key comes from the client only), lowercased. */
function safeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!isSensitiveHeader(name)) out[name.toLowerCase()] = value;
  }
  return out;
}

function parseBody<T extends z.ZodType>(schema: T, raw: string, response: RawResponse, secret: string): z.infer<T> {
  const id = requestId(response.headers);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    const text = scrub(raw, secret);
    throw new ResponseValidationError({
      message: `Expected a JSON body from ${response.url.pathname}, got ${JSON.stringify(text.slice(0, 80))}.`,
      body: text,
      requestId: id,
      problems: ['(body): not JSON'],
    });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const problems = describeIssues(result.error).map((problem) => scrub(problem, secret));
    throw new ResponseValidationError({
      message: `Unexpected response from ${response.url.pathname}: ${problems.join('; ')}${id ? ` [request id ${id}]` : ''}`,
      body: scrubValue(json, secret),
      requestId: id,
      problems,
    });
  }
  return result.data;
}
