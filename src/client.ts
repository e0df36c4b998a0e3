import type { Readable } from 'node:stream';
import pRetry from 'p-retry';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { APIUserAbortError, AvatarVideoError, RateLimitError, ResponseValidationError } from './errors.js';
import { ConcurrencyLimiter } from './internal/concurrency-limiter.js';
import { isLogLevel, type Logger, type LogLevel, leveledLogger } from './internal/logger.js';
import { isSensitiveHeader } from './internal/redact.js';
import { parseRetryAfter, type RequestKind, retryDelay, shouldRetry } from './internal/retry.js';
import { describeFailure, header, makeAPIError, type RawResponse, readText, send } from './internal/transport.js';
import { Videos } from './resources/videos.js';
import { describeIssues } from './schemas.js';
import { VERSION } from './version.js';

/** Options every request method accepts; each overrides the client option of the same name. */
export interface RequestOptions {
  /**
   * Milliseconds one attempt may take, including a response body that stalls after its headers.
   * For streamed downloads it bounds the wait for headers and each silent gap in the body.
   * @default 60000
   */
  timeout?: number;
  /**
   * Retries after the first attempt, for failures that are safe to repeat (see the README's retry table).
   * @default 2
   */
  maxRetries?: number;
  /**
   * Longest wait between retries the caller accepts. A `Retry-After` beyond it fails at once, with
   * `RateLimitError.retryAfter` set, instead of sleeping.
   * @default 60000
   */
  maxRetryDelay?: number;
  /** Cancels the request (and any retry wait); rejects with `APIUserAbortError`. @default undefined */
  signal?: AbortSignal;
  /** Extra headers. Credential headers cannot be set here: the key comes from the client. @default {} */
  headers?: Record<string, string>;
}

/** Local media limits. The spec states audio of 1 to 60 s and, elsewhere, 1 to 180 s; the stricter applies by default. */
export interface MediaLimits {
  /** Longest driving audio, in seconds. Raise to 180 only if your account accepts it. @default 60 */
  maxAudioSeconds?: number;
}

export interface ClientOptions extends Omit<RequestOptions, 'signal'> {
  /** API key sent as `x-api-key`. @default process.env.AVATAR_VIDEO_API_KEY */
  apiKey?: string;
  /** Service address, e.g. `https://api.example.com` (paths start with `/v1`). @default process.env.AVATAR_VIDEO_BASE_URL */
  baseURL?: string;
  /** Allow a plain `http:` base URL that is not loopback. The key would cross the network in clear. @default false */
  allowInsecureHttp?: boolean;
  /** Where log lines go. Lines never contain the key. @default console */
  logger?: Logger;
  /** Lowest level written. @default process.env.AVATAR_VIDEO_LOG ?? 'warn' */
  logLevel?: LogLevel;
  /** Local media limits used by input validation. @default { maxAudioSeconds: 60 } */
  limits?: MediaLimits;
}

/** A request as the resources describe it; the client adds auth, retries and parsing. */
export interface APIRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  /** Builds a fresh body for each attempt (an upload stream can only be read once). */
  body?: () => Promise<{ stream: Readable; headers: Record<string, string> }>;
  kind: RequestKind;
  /** Sees the headers of the successful response (the wait helpers read a poll hint there). */
  onHeaders?: (headers: RawResponse['headers']) => void;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

function env(name: string): string | undefined {
  const value = typeof process !== 'undefined' ? process.env[name] : undefined;
  return value?.trim() || undefined;
}

function validateBaseURL(raw: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AvatarVideoError(`baseURL ${JSON.stringify(raw)} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AvatarVideoError(`baseURL must be http(s), got ${url.protocol}`);
  }
  if (url.username || url.password) throw new AvatarVideoError('baseURL must not contain credentials; pass apiKey instead.');
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname) && !allowInsecureHttp) {
    throw new AvatarVideoError(
      `baseURL ${url.origin} uses plain http, which would send the API key in clear. Use https, or set allowInsecureHttp: true.`,
    );
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * The avatar video API client.
 *
 * @example
 * const client = new AvatarVideo(); // reads AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL
 * const { path } = await client.videos.generate({ audio_reference: './speech.wav', image_reference: './me.png' }, { output: 'me.mp4' });
 */
export class AvatarVideo {
  /** Video jobs: create, retrieve, list, content, and the helpers built on them. */
  readonly videos: Videos;
  /** The service address, with a trailing slash. */
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxRetryDelay: number;
  readonly limits: Required<MediaLimits>;
  /** @internal */
  readonly logger: Logger;
  /** @internal Jobs running at once through this client: one adaptive limit shared by every helper. */
  readonly limiter = new ConcurrencyLimiter();
  // Private fields stay out of util.inspect, JSON.stringify and Object.keys.
  readonly #apiKey: string;
  /** Headers of every API request, built once (frozen: it is shared by requests without extra headers). */
  readonly #headers: Readonly<Record<string, string>>;
  readonly #dispatcher: Dispatcher;
  /** Whether debug lines are written: their strings are not even built otherwise (hot path). */
  readonly #debug: boolean;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? env('AVATAR_VIDEO_API_KEY');
    if (!apiKey) {
      throw new AvatarVideoError('Missing API key: pass { apiKey } or set AVATAR_VIDEO_API_KEY.');
    }
    if (/[\s\x00-\x1f\x7f]/.test(apiKey)) {
      throw new AvatarVideoError('The API key contains whitespace or control characters; check how it was read.');
    }
    const baseURL = options.baseURL ?? env('AVATAR_VIDEO_BASE_URL');
    if (!baseURL) {
      throw new AvatarVideoError('Missing base URL: pass { baseURL } or set AVATAR_VIDEO_BASE_URL (the spec fixes no address).');
    }
    this.#apiKey = apiKey;
    this.baseURL = validateBaseURL(baseURL, options.allowInsecureHttp ?? false).href;
    this.timeout = options.timeout ?? 60_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryDelay = options.maxRetryDelay ?? 60_000;
    this.limits = { maxAudioSeconds: options.limits?.maxAudioSeconds ?? 60 };
    const level = options.logLevel ?? env('AVATAR_VIDEO_LOG');
    this.logger = leveledLogger(options.logger ?? console, isLogLevel(level) ? level : 'warn');
    this.#debug = level === 'debug';
    this.#headers = Object.freeze({
      'user-agent': `avatar-video/${VERSION} node/${process.versions.node}`,
      accept: 'application/json',
      ...safeHeaders(options.headers),
      'x-api-key': apiKey,
    });
    // One keep-alive pool per client; requests to the CDN origin share it.
    this.#dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
    this.videos = new Videos(this);
  }

  /** @internal The dispatcher, for the download helpers. */
  get dispatcher(): Dispatcher {
    return this.#dispatcher;
  }

  /** @internal The key, for code that must hide it from foreign text. Never logged. */
  get secret(): string {
    return this.#apiKey;
  }

  /** @internal Absolute URL of an API path (`v1/...`, relative to the base URL). */
  url(path: string, query?: APIRequest['query']): URL {
    // The base ends with '/', so appending equals resolving, at half the parsing cost.
    const url = new URL(this.baseURL + path.replace(/^\//, ''));
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** @internal Headers for a request to the API origin. */
  headers(extra?: Record<string, string>): Readonly<Record<string, string>> {
    // Most requests add nothing: they share one object, which undici also reads faster than a fresh one.
    if (!extra || Object.keys(extra).length === 0) return this.#headers;
    return { ...this.#headers, ...safeHeaders(extra), 'x-api-key': this.#apiKey };
  }

  /** A safe summary for logs and JSON: never the key. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, timeout: this.timeout, maxRetries: this.maxRetries, maxRetryDelay: this.maxRetryDelay };
  }

  /** Release pooled connections. The client can't be used afterwards. */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  /**
   * @internal The one request path: auth, retries, error mapping, JSON parsing and schema validation.
   */
  async request<T extends z.ZodType>(request: APIRequest, schema: T, options: RequestOptions = {}): Promise<z.infer<T>> {
    const { response, text } = await this.withRetries(request.kind, options, async (attempt) => {
      const body = request.body ? await request.body() : undefined;
      const url = this.url(request.path, request.query);
      const started = this.#debug ? performance.now() : 0;
      if (this.#debug) this.logger.debug(`${request.method} ${url.pathname}${url.search} (attempt ${attempt})`);
      const response = await send(
        this.#dispatcher,
        {
          url,
          method: request.method,
          headers: this.headers(body ? { ...options.headers, ...body.headers } : options.headers),
          body: body?.stream,
          timeout: options.timeout ?? this.timeout,
          signal: options.signal,
        },
        this.#apiKey,
      );
      const text = await readText(response, options.signal, this.#apiKey);
      if (this.#debug) {
        const requestId = header(response.headers, 'x-request-id') ?? header(response.headers, 'request-id');
        this.logger.debug(
          `${response.status} ${url.pathname} in ${Math.round(performance.now() - started)} ms${requestId ? ` [${requestId}]` : ''}`,
        );
      }
      if (response.status >= 300) throw makeAPIError(response.status, response.headers, text, this.#apiKey);
      return { response, text };
    });
    request.onHeaders?.(response.headers);
    return parseBody(schema, text, response);
  }

  /** @internal Run `attempt` under the retry policy for `kind`. */
  async withRetries<R>(kind: RequestKind, options: RequestOptions, attempt: (number: number) => Promise<R>): Promise<R> {
    // Most requests succeed at once: p-retry's setup (a tenth of a loopback request's CPU, see
    // bench/poll.ts) is paid only after a failure, which its first "attempt" then replays.
    let first: unknown;
    try {
      return await attempt(1);
    } catch (error) {
      first = error;
    }
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const maxRetryDelay = options.maxRetryDelay ?? this.maxRetryDelay;
    return pRetry((number) => (number === 1 ? Promise.reject(first) : attempt(number)), {
      retries: maxRetries,
      minTimeout: 0,
      maxTimeout: 0,
      shouldRetry: async ({ error, retriesConsumed }) => {
        if (!shouldRetry(kind, describeFailure(error))) return false;
        const hint = (error as { headers?: Record<string, string> }).headers?.['retry-after'];
        const delay = retryDelay(retriesConsumed + 1, parseRetryAfter(hint), { maxRetryDelay });
        // A refused create teaches the client's job limit even when it is retried here (the last one, videos.create).
        if (kind === 'create' && error instanceof RateLimitError) this.limiter.throttled(error.retryAfter, this.limiter.now());
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
}

function safeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!isSensitiveHeader(name)) out[name.toLowerCase()] = value;
  }
  return out;
}

/** Wait `ms`, or reject with APIUserAbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError('Request was aborted.', { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError('Request was aborted.', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parseBody<T extends z.ZodType>(schema: T, text: string, response: RawResponse): z.infer<T> {
  const requestId = header(response.headers, 'x-request-id') ?? header(response.headers, 'request-id');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ResponseValidationError({
      message: `Expected a JSON body from ${response.url.pathname}, got ${JSON.stringify(text.slice(0, 80))}.`,
      body: text,
      requestId,
      problems: ['(body): not JSON'],
    });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const problems = describeIssues(result.error);
    throw new ResponseValidationError({
      message: `Unexpected response from ${response.url.pathname}: ${problems.join('; ')}${requestId ? ` [request id ${requestId}]` : ''}`,
      body: json,
      requestId,
      problems,
    });
  }
  return result.data;
}
