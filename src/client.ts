import type { Dispatcher } from 'undici';
import { checkOptions } from './internal/arguments.js';
import type { ConcurrencyLimiter, JobConcurrency } from './internal/concurrency-limiter.js';
import type { CreateGate, CreateRateState } from './internal/create-gate.js';
import type { CreateRate } from './internal/create-rate.js';
import type { FetchFunction } from './internal/fetch-send.js';
import type { Logger } from './internal/logger.js';
import type { Platform } from './internal/platform.js';
import type { RequestOptions } from './internal/request-options.js';
import { Transport } from './internal/transport.js';
import { clientSettings } from './lib/client-settings.js';
import type { MediaLimits } from './lib/media/types.js';
import { VideoEndpoints } from './resources/endpoints.js';
import type { VideosParts } from './resources/videos.js';

export type { JobConcurrency } from './internal/concurrency-limiter.js';
export type { CreateRateState } from './internal/create-gate.js';
export type { CreateRate } from './internal/create-rate.js';
export type { RequestOptions } from './internal/request-options.js';
export type { MediaLimits } from './lib/media/types.js';

/** The options every runtime's client reads (each entry's `ClientOptions` documents its own). */
interface SharedOptions extends Omit<RequestOptions, 'signal'> {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  allowInsecureHttp?: boolean | undefined;
  logger?: Logger | undefined;
  logLevel?: string | undefined;
  limits?: MediaLimits | undefined;
  dispatcher?: Dispatcher | undefined;
  fetch?: FetchFunction | undefined;
  jobConcurrency?: 'auto' | number | undefined;
  createRate?: CreateRate | undefined;
  billingIncrementSeconds?: number | undefined;
}

/**
 * The avatar video API client of every runtime, built with the runtime's platform by each entry's `AvatarVideo`
 * (Node, Bun and Deno: `avatar-video`; Workers, Edge and browsers: `avatar-video/web`). `Options` are the entry's
 * `ClientOptions`, `V` its `Videos`.
 */
export class Client<Options, V> {
  /** Video jobs: create, retrieve, list, content, and the helpers built on them. */
  readonly videos: V;
  /** The service address (or, in a browser, the proxy's), with a trailing slash. */
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxRetryDelay: number;
  /** The local media limits in force (`limits` given, or the defaults). */
  readonly limits: { maxAudioSeconds: number };
  /** The billing step in force, in seconds (`billingIncrementSeconds` given, or the service's published 6). */
  readonly billingIncrementSeconds: number;
  /** @internal */
  readonly logger: Logger;
  // A private field stays out of util.inspect, JSON.stringify, Object.keys and the published types.
  readonly #transport: Transport;
  /** Jobs running at once through this client: one limit shared by every helper. */
  readonly #limiter: ConcurrencyLimiter;
  /** The one gate every create of the workflows waits at: the declared create rate, or one learned from 429s. */
  readonly #createGate: CreateGate;

  // Typed `unknown` and a builder: the published types show no internal type. `platform` is the entry's
  // (internal/platform.ts), `videos` builds its `Videos` from the parts (resources/videos.ts's `VideosParts`).
  protected constructor(platform: unknown, options: Options, videos: (parts: unknown) => V) {
    const runtime = platform as Platform;
    const given = options as SharedOptions;
    checkOptions('new AvatarVideo', given, runtime.optionsExample);
    checkOptions('new AvatarVideo', given.limits, undefined, 'limits');
    const { apiKey, baseURL, logLevel, userAgent, createRate } = runtime.credentials(given);
    this.baseURL = baseURL;
    const settings = clientSettings(given, logLevel, createRate);
    this.timeout = settings.timeout;
    this.maxRetries = settings.maxRetries;
    this.maxRetryDelay = settings.maxRetryDelay;
    this.limits = settings.limits;
    this.billingIncrementSeconds = settings.billingIncrementSeconds;
    this.#limiter = settings.limiter;
    this.#createGate = settings.createGate;
    this.logger = settings.logger;
    this.#transport = new Transport({
      apiKey: apiKey ?? '',
      baseURL,
      headers: { ...(userAgent ? { 'user-agent': userAgent } : {}), accept: 'application/json', ...given.headers },
      http: runtime.http({ fetch: given.fetch, dispatcher: given.dispatcher, secret: apiKey ?? '' }),
      logger: this.logger,
      debug: logLevel === 'debug',
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      maxRetryDelay: this.maxRetryDelay,
      loadZod: runtime.loadZod,
    });
    const api = new VideoEndpoints(this.#transport, this.limits, runtime);
    const context = {
      logger: this.logger,
      timeout: this.timeout,
      maxRetryDelay: this.maxRetryDelay,
      limiter: this.#limiter,
      limits: this.limits,
      createRate: settings.createRate,
      createGate: this.#createGate,
      billingIncrementSeconds: this.billingIncrementSeconds,
    };
    const parts: VideosParts = { transport: this.#transport, api, context, proxied: apiKey === undefined };
    this.videos = videos(parts);
  }

  /** The client's limit on jobs running at once, now: `{ limit, running, lastThrottle? }`. */
  get jobConcurrency(): JobConcurrency {
    return this.#limiter.snapshot();
  }

  /**
   * The create-rate gate, now: where its rate comes from (`declared`, `learned` from 429s, or `none` yet), the rate,
   * the creates waiting at it and when the next may go. Every create of `generate`, `createAndWait`, long videos and
   * batches waits there; the bare `videos.create` does not.
   */
  get createRate(): CreateRateState {
    return this.#createGate.snapshot();
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
