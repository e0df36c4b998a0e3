import type { Dispatcher } from 'undici';
import {
  type APIErrorDetail,
  AvatarVideoError,
  type BatchProblem,
  type ConnectionProblem,
  type ErrorOrigin,
  type FailedSegment,
  type MediaIssueCode,
  type MediaValidationIssue,
  type OutputPathProblem,
} from './errors.js';
import { checkOptions } from './internal/arguments.js';
import { validateBaseURL } from './internal/base-url.js';
import { chooseHttpClient } from './internal/choose-http.js';
import type { ConcurrencyLimiter, JobConcurrency } from './internal/concurrency-limiter.js';
import type { Logger, LogLevel } from './internal/logger.js';
import type { RequestOptions } from './internal/request-options.js';
import { runtimeName } from './internal/runtime.js';
import { Transport } from './internal/transport.js';
import type { BatchItemError, BatchProgress } from './lib/batch/types.js';
import { checkKeyCharacters, clientSettings } from './lib/client-settings.js';
import type { DownloadProgress } from './lib/download.js';
import type { UploadProgress } from './lib/endpoints.js';
import type { LongProgress } from './lib/long/generate-long.js';
import type { MediaLimits } from './lib/media/validate.js';
import type { WaitProgress } from './lib/wait.js';
import { Videos } from './resources/videos.js';
import type { VideoError } from './schemas.js';
import { VERSION } from './version.js';

export type { JobConcurrency } from './internal/concurrency-limiter.js';
export type { RequestOptions } from './internal/request-options.js';
export type { MediaLimits } from './lib/media/validate.js';

export interface ClientOptions extends Omit<RequestOptions, 'signal'> {
  /** API key sent as `x-api-key`. @default process.env.AVATAR_VIDEO_API_KEY */
  apiKey?: string | undefined;
  /** Service address, e.g. `https://api.example.com` (paths start with `/v1`). @default process.env.AVATAR_VIDEO_BASE_URL */
  baseURL?: string | undefined;
  /** Allow a plain `http:` base URL that is not loopback. The key would cross the network in clear. @default false */
  allowInsecureHttp?: boolean | undefined;
  /** Where log lines go. Lines never contain the key. @default console */
  logger?: Logger | undefined;
  /** Lowest level written. @default process.env.AVATAR_VIDEO_LOG ?? 'warn' */
  logLevel?: LogLevel | undefined;
  /** Local media limits used by input validation. @default { maxAudioSeconds: 60 } */
  limits?: MediaLimits | undefined;
  /**
   * The undici dispatcher for every request, to the API and to the file host alike: pass
   * `new ProxyAgent(url)` or `new EnvHttpProxyAgent()` to go through a proxy. The client does not close
   * a dispatcher it was given. The key still goes only to the API's origin.
   * Not with `fetch`, nor on a runtime whose undici has no dispatcher (Bun): an `InvalidArgumentError` says so.
   * @default a keep-alive `Agent` of the client's own
   */
  dispatcher?: Dispatcher | undefined;
  /**
   * A fetch function to send every request with instead of undici: your own instrumented fetch (tracing, a test
   * double), which then sees every request, to the API and to the file host. Redirects are still followed by the SDK
   * (`redirect: 'manual'`), so the key never reaches another origin. Failures carry less detail than undici's (the
   * connection problem `code` is read from what the fetch's error says). Not with `dispatcher`.
   * @default undici on Node; the runtime's global fetch where undici has no dispatcher (Bun)
   */
  fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
  /**
   * How many video jobs this client runs at once: the one limit on jobs, for `generate`, `createAndWait`,
   * `generateLong`'s segments and `generateBatch`'s items alike, each holding a place from its create to its end (a
   * batch's or long video's `concurrency` is only how much work it holds in hand). `'auto'` finds the service's
   * limit: it starts at 2, grows while creates are accepted and jobs finish, shrinks on a 429 or a job FAILED for a
   * rate limit, and waits out any `Retry-After`; it stays between 1 and 64. A number fixes the limit (Retry-After
   * pauses still apply). Read the state with `client.jobConcurrency`.
   * @default 'auto'
   */
  jobConcurrency?: 'auto' | number | undefined;
}

function env(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
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
  /** The local media limits in force (`limits` given, or the defaults). */
  readonly limits: { maxAudioSeconds: number };
  /** @internal */
  readonly logger: Logger;
  // A private field stays out of util.inspect, JSON.stringify, Object.keys and the published types.
  readonly #transport: Transport;
  /** Jobs running at once through this client: one limit shared by every helper. */
  readonly #limiter: ConcurrencyLimiter;

  constructor(options: ClientOptions = {}) {
    checkOptions('new AvatarVideo', options);
    checkOptions('new AvatarVideo', options.limits, undefined, 'limits');
    const apiKey = options.apiKey ?? env('AVATAR_VIDEO_API_KEY');
    if (!apiKey) {
      throw new AvatarVideoError('Missing API key: pass { apiKey } or set AVATAR_VIDEO_API_KEY.');
    }
    checkKeyCharacters(apiKey);
    const baseURL = options.baseURL ?? env('AVATAR_VIDEO_BASE_URL');
    if (!baseURL) {
      throw new AvatarVideoError('Missing base URL: pass { baseURL } or set AVATAR_VIDEO_BASE_URL (the spec fixes no address).');
    }
    this.baseURL = validateBaseURL(baseURL, options.allowInsecureHttp ?? false).href;
    const level = options.logLevel ?? env('AVATAR_VIDEO_LOG');
    const settings = clientSettings(options, level);
    this.timeout = settings.timeout;
    this.maxRetries = settings.maxRetries;
    this.maxRetryDelay = settings.maxRetryDelay;
    this.limits = settings.limits;
    this.#limiter = settings.limiter;
    this.logger = settings.logger;
    this.#transport = new Transport({
      apiKey,
      baseURL: this.baseURL,
      headers: { 'user-agent': `avatar-video/${VERSION} ${runtimeName()}`, accept: 'application/json', ...options.headers },
      http: chooseHttpClient({ fetch: options.fetch, dispatcher: options.dispatcher, secret: apiKey }),
      logger: this.logger,
      debug: level === 'debug',
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      maxRetryDelay: this.maxRetryDelay,
    });
    this.videos = Videos.build(this.#transport, this.limits, this.#limiter);
  }

  /** The client's limit on jobs running at once, now: `{ limit, running, lastThrottle? }`. */
  get jobConcurrency(): JobConcurrency {
    return this.#limiter.snapshot();
  }

  /** A safe summary for logs and JSON: never the key. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, timeout: this.timeout, maxRetries: this.maxRetries, maxRetryDelay: this.maxRetryDelay };
  }

  /**
   * Release pooled connections. The client can't be used afterwards. A `dispatcher` passed in is left open. It never
   * throws: a pool that cannot be closed (Bun's undici has no `close`) is logged as a warning and dropped with the
   * client, so a `finally` that closes never hides the error it runs after.
   */
  async close(): Promise<void> {
    try {
      await this.#transport.close();
    } catch (error) {
      this.logger.warn(`The client's connection pool could not be closed (${(error as Error)?.message ?? error}); it is dropped.`);
    }
  }
}

/**
 * Types users meet inside a value they already hold (an error's details, a progress callback's argument, a part of a
 * result or of an option) rather than build or pass whole: named as `AvatarVideo.MediaValidationIssue`, so the
 * entry's own names stay the ones users import.
 */
export declare namespace AvatarVideo {
  export type {
    APIErrorDetail,
    BatchItemError,
    BatchProblem,
    BatchProgress,
    ConnectionProblem,
    DownloadProgress,
    ErrorOrigin,
    FailedSegment,
    LogLevel,
    LongProgress,
    MediaIssueCode,
    MediaValidationIssue,
    OutputPathProblem,
    UploadProgress,
    VideoError,
    WaitProgress,
  };
}
