import type * as Zod from 'zod';
import { AvatarVideoError, type ErrorOrigin, ResponseTooLargeError, ResponseValidationError } from '../errors.js';
import { describeIssues, type Schema } from '../schemas.js';
import { apiError, fileHostError, streamedApiError } from './api-error.js';
import { type Answer, APIPromise } from './api-promise.js';
import { type RawHeaders, requestId, safeHeaders } from './headers.js';
import { type HttpClient, MAX_JSON_BYTES, type SentResponse } from './http-client.js';
import type { Logger } from './logger.js';
import { redactHeaders, scrub, scrubValue } from './redact.js';
import { followRedirects } from './redirect.js';
import { isRedirect } from './redirect-rule.js';
import type { APIRequest, RequestOptions } from './request-options.js';
import { type RequestKind, withRetries } from './retry.js';
import { FILE_ROUTE, traceRequest } from './tracing.js';

export type { SentResponse } from './http-client.js';

export interface TransportOptions {
  apiKey: string;
  /** Validated, with a trailing slash. */
  baseURL: string;
  /** Extra headers for every API request (credential headers are dropped). */
  headers: Record<string, string> | undefined;
  /** The HTTP client every request goes through (internal/choose-http.ts). */
  http: HttpClient;
  logger: Logger;
  debug: boolean;
  timeout: number;
  maxRetries: number;
  maxRetryDelay: number;
  /** zod, loaded (through the platform) for the first answer a schema's fast path does not take. */
  loadZod: () => Promise<typeof Zod>;
}

/** Per-call settings of a streamed GET: its attempt number under the read retries, its body's idle limit. */
export type StreamOptions = Pick<RequestOptions, 'headers' | 'timeout' | 'signal'> & {
  /** Milliseconds the body may send nothing before it is given up; `timeout` when unset. */
  idleTimeout?: number | undefined;
  /** Which try of the call this is, for the trace (1 when unset). */
  attempt?: number | undefined;
};

/**
 * @internal The one HTTP path of the SDK, owned by the client: auth headers, retries, redirects that drop the key
 * off the API origin, error mapping and scrubbing. The key lives in a private field: nothing here returns it.
 */
export class Transport {
  readonly timeout: number;
  readonly maxRetryDelay: number;
  readonly logger: Logger;
  readonly #maxRetries: number;
  readonly #apiKey: string;
  readonly #origin: string;
  /** The API's `URL.host`, for errors and traces. */
  readonly #host: string;
  /** The base URL's path, ending with '/': API paths (`v1/...`, already encoded) are appended to it. */
  readonly #basePath: string;
  /** Headers of every API request, built once (each request copies them). */
  readonly #headers: Readonly<Record<string, string>>;
  /** The HTTP seam: undici or fetch. */
  readonly #http: HttpClient;
  /** Debug lines' strings are not even built without it. */
  readonly #debug: boolean;
  readonly #redact = (headers: RawHeaders) => redactHeaders(headers, this.#apiKey);
  readonly #log = (message: string) => this.logger.info(message);
  readonly #loadZod: () => Promise<typeof Zod>;

  constructor(options: TransportOptions) {
    const base = new URL(options.baseURL);
    this.#origin = base.origin;
    this.#host = base.host;
    this.#basePath = base.pathname;
    this.timeout = options.timeout;
    this.#maxRetries = options.maxRetries;
    this.maxRetryDelay = options.maxRetryDelay;
    this.logger = options.logger;
    this.#debug = options.debug;
    this.#apiKey = options.apiKey;
    // No key (a page behind avatar-video/proxy): no header, not an empty one, which would cost a CORS preflight.
    const key: Record<string, string> = options.apiKey ? { 'x-api-key': options.apiKey } : {};
    this.#headers = Object.freeze({ ...safeHeaders(options.headers), ...key });
    this.#http = options.http;
    this.#loadZod = options.loadZod;
  }

  /** Absolute URL of an API path (`v1/...`). */
  url(path: string): URL {
    return new URL(this.#basePath + path, this.#origin);
  }

  /** Release pooled connections (of the transport's own pool; a dispatcher passed in belongs to the caller). */
  close(): Promise<void> {
    return this.#http.close();
  }

  /** The public promise of a call's answer; a call that throws at once (a bad id) rejects, as an async method would. */
  promise<T>(call: () => Promise<Answer<T>>): APIPromise<T> {
    let answer: Promise<Answer<T>>;
    try {
      answer = call();
    } catch (error) {
      answer = Promise.reject(error);
    }
    return APIPromise.build(answer, this.#redact);
  }

  /** A JSON request: auth, retries, error mapping, a bounded read, parsing and validation. */
  request<T>(request: APIRequest, schema: Schema<T>, options: RequestOptions = {}): Promise<Answer<T>> {
    const route = `/${request.route ?? request.path}`;
    const site = { method: request.method, route, origin: 'api', host: this.#host } as const;
    return this.withRetries(request.kind, options, (attempt) =>
      traceRequest({ ...site, attempt }, () => this.#attempt(request, schema, options, attempt), requestId),
    );
  }

  /** Run `attempt` under the retry policy for `kind`, with the call's `maxRetries`, `maxRetryDelay` and `signal`. */
  withRetries<R>(kind: RequestKind, options: RequestOptions, attempt: (number: number) => Promise<R>): Promise<R> {
    const settings = {
      maxRetries: options.maxRetries ?? this.#maxRetries,
      maxRetryDelay: options.maxRetryDelay ?? this.maxRetryDelay,
      signal: options.signal,
      onRetry: this.#log,
    };
    return withRetries(kind, settings, attempt);
  }

  /**
   * One streamed GET (no retries), following redirects; the key goes only to the API's origin. `route` is the API
   * path's template (`v1/videos/{id}/content`), for the trace of each hop on the API's origin.
   */
  async get(url: URL, route: string, options: StreamOptions = {}): Promise<SentResponse> {
    const { response } = await followRedirects(url, this.#follow(url, route, options));
    return response;
  }

  /** One GET of the API `url` that returns the first address off the API's origin, unrequested, with its redirect. */
  async resolveRedirect(url: URL, route: string, options: StreamOptions = {}): Promise<Answer<string>> {
    const { response, offOrigin } = await followRedirects(url, this.#follow(url, route, options), true);
    if (offOrigin) return { data: offOrigin.href, status: response.status, headers: response.headers };
    response.release();
    throw new AvatarVideoError(`${url.pathname} answered ${response.status} without redirecting to a file address.`);
  }

  #follow(url: URL, route: string, options: StreamOptions) {
    // Off the API's origin (a resume straight at the file host) the key stays home, as on a redirect.
    const base = url.origin === this.#origin ? this.#headers : safeHeaders(this.#headers);
    const headers = options.headers ? { ...base, ...safeHeaders(options.headers) } : base;
    const timeout = options.timeout ?? this.timeout;
    const attempt = options.attempt ?? 1;
    // Each hop is a request of its own on the trace; an error answer (not a redirect) is thrown inside it.
    const hop = (at: URL, origin: ErrorOrigin, send: () => Promise<SentResponse>) => {
      const site = { method: 'GET', route: origin === 'api' ? `/${route}` : FILE_ROUTE, origin, host: at.host, attempt } as const;
      return traceRequest(site, () => send().then((response) => this.#checked(response, origin)), requestId);
    };
    const { signal, idleTimeout } = options;
    return { http: this.#http, headers, timeout, idleTimeout, signal, apiOrigin: this.#origin, hop };
  }

  /** A streamed answer that is a success or a redirect; else its typed error (a file host's is plain, its body dropped). */
  async #checked(response: SentResponse, origin: ErrorOrigin): Promise<SentResponse> {
    if (response.status < 300 || isRedirect(response.status)) return response;
    if (origin === 'file-host') throw fileHostError(response, this.#apiKey);
    throw await streamedApiError(response, this.#apiKey);
  }

  async #attempt<T>(request: APIRequest, schema: Schema<T>, options: RequestOptions, attempt: number) {
    const body = request.body ? await request.body() : undefined;
    // Strings, not a URL: one parse less per request (bench/poll.ts).
    const path = this.#basePath + request.path + queryString(request.query);
    const started = this.#debug ? performance.now() : 0;
    if (this.#debug) this.logger.debug(`${request.method} ${path} (attempt ${attempt})`);
    const extra = body ? { ...options.headers, ...body.headers } : options.headers;
    // A fresh object per request: a dispatcher may add to it (ProxyAgent sets `host`).
    const headers = extra ? { ...this.#headers, ...safeHeaders(extra) } : { ...this.#headers };
    const timeout = options.timeout ?? this.timeout;
    const { signal } = options;
    const sent = {
      origin: this.#origin,
      path,
      method: request.method,
      headers,
      body: body?.stream,
      timeout,
      signal,
      abortsUntilSent: request.kind === 'create',
    };
    const answer = await this.#http.exchange(sent);
    if (answer.status >= 300) throw apiError(answer.status, answer.headers, answer.text, this.#apiKey, request.advice, this.#host, path);
    if (this.#debug) {
      const id = requestId(answer.headers);
      this.logger.debug(`${answer.status} ${path} in ${Math.round(performance.now() - started)} ms${id ? ` [${id}]` : ''}`);
    }
    const where = this.#basePath + request.path;
    if (answer.truncated) {
      throw new ResponseTooLargeError(`The answer from ${where} is larger than ${MAX_JSON_BYTES} bytes; it was not read.`, {
        limit: MAX_JSON_BYTES,
        requestId: requestId(answer.headers),
      });
    }
    const json = parseJSON(answer.text, where, answer.headers, this.#apiKey);
    const data = schema.accepts?.(json) ? json : checked(schema(await this.#loadZod()), json, where, answer.headers, this.#apiKey);
    return { data, status: answer.status, headers: answer.headers };
  }
}

/** `?a=1&b=2` of the defined values, or ''. */
function queryString(query: APIRequest['query']): string {
  if (query === undefined) return ''; // a poll's case: no entries to build
  const defined = Object.entries(query).flatMap(([key, value]) => (value == null ? [] : [[key, String(value)]]));
  return defined.length === 0 ? '' : `?${new URLSearchParams(defined)}`;
}

/** The answer's body as JSON; `where` is its path, for messages. */
function parseJSON(raw: string, where: string, headers: RawHeaders, secret: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    const text = scrub(raw, secret);
    throw new ResponseValidationError({
      message: `Expected a JSON body from ${where}, got ${JSON.stringify(text.slice(0, 80))}.`,
      body: text,
      requestId: requestId(headers),
      problems: ['(body): not JSON'],
    });
  }
}

/** `json` checked against the zod schema its fast path did not take. */
function checked<T>(schema: Zod.ZodType<T>, json: unknown, where: string, headers: RawHeaders, secret: string): T {
  const result = schema.safeParse(json);
  if (!result.success) {
    const id = requestId(headers);
    const problems = describeIssues(result.error).map((problem) => scrub(problem, secret));
    throw new ResponseValidationError({
      message: `Unexpected response from ${where}: ${problems.join('; ')}${id ? ` [request id ${id}]` : ''}`,
      body: scrubValue(json, secret),
      requestId: id,
      problems,
    });
  }
  return result.data;
}
