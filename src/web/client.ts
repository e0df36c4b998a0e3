import {
  type APIErrorDetail,
  AvatarVideoError,
  type ConnectionProblem,
  type ErrorOrigin,
  InvalidArgumentError,
  type MediaIssueCode,
  type MediaValidationIssue,
} from '../errors.js';
import { checkOptions } from '../internal/arguments.js';
import { validateBaseURL } from '../internal/base-url.js';
import type { ConcurrencyLimiter, JobConcurrency } from '../internal/concurrency-limiter.js';
import { fetchClient } from '../internal/fetch-send.js';
import type { Logger, LogLevel } from '../internal/logger.js';
import type { RequestOptions } from '../internal/request-options.js';
import { Transport } from '../internal/transport.js';
import { checkKeyCharacters, clientSettings } from '../lib/client-settings.js';
import type { MediaLimits } from '../lib/media/validate.js';
import { VERSION } from '../version.js';
import { pageFetch } from './page-fetch.js';
import { Videos } from './videos.js';

/** Options of the web entry's client (Workers, Edge, browsers). */
export interface ClientOptions extends Omit<RequestOptions, 'signal'> {
  /**
   * API key sent as `x-api-key`, on a server runtime (a Worker's secret binding, an Edge function's environment).
   * Never in a browser: there the key would be readable by anyone who opens the page, and passing one is an
   * `InvalidArgumentError`; the browser talks to avatar-video/proxy, which adds the key on the server.
   * @default process.env.AVATAR_VIDEO_API_KEY where the runtime has a `process.env` (Vercel Edge); none in a browser
   */
  apiKey?: string | undefined;
  /**
   * The service's address, e.g. `https://api.example.com`. In a browser, avatar-video/proxy's address (the path it
   * is mounted at, e.g. `/api/avatar`), which may be relative to the page.
   */
  baseURL: string;
  /** Allow a plain `http:` base URL that is not loopback when a key is sent. The key would cross the network in clear. @default false */
  allowInsecureHttp?: boolean | undefined;
  /** Where log lines go. Lines never contain the key. @default console */
  logger?: Logger | undefined;
  /** Lowest level written. @default 'warn' */
  logLevel?: LogLevel | undefined;
  /** Local media limits used by input validation. @default { maxAudioSeconds: 60 } */
  limits?: MediaLimits | undefined;
  /** The fetch function every request is sent with: your own instrumented one. @default the runtime's global fetch */
  fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
  /**
   * How many video jobs this client runs at once (`createAndWait`): `'auto'` finds the service's limit, a number fixes
   * it. Read the state with `client.jobConcurrency`.
   * @default 'auto'
   */
  jobConcurrency?: 'auto' | number | undefined;
}

/** A page's runtime: a `document` is there (a worker of a page has none, and keeps a key as a server does). */
const inBrowser = () => typeof (globalThis as { document?: unknown }).document !== 'undefined';

/** `name` of the runtime's `process.env`, where it has one (Vercel Edge, Deno, Workers with nodejs_compat). */
function env(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env?.[name]?.trim() || undefined;
}

const KEY_IN_BROWSER =
  'An API key was passed to the client in a browser, where anyone who opens the page can read it: keep the key on a server, ' +
  "serve avatar-video/proxy's createProxyHandler({ apiKey }) there, and give the browser's client that proxy's address as baseURL, without a key.";

/** The checked key and base URL: a key on a server runtime; none in a browser, whose base URL is the proxy's. */
function credentials(options: ClientOptions): { apiKey: string | undefined; baseURL: URL } {
  if (typeof options.baseURL !== 'string' || options.baseURL === '') {
    throw new InvalidArgumentError('baseURL', "new AvatarVideo: pass { baseURL }: the API's address, or in a browser the proxy's.");
  }
  if (inBrowser()) {
    if (options.apiKey !== undefined) throw new InvalidArgumentError('apiKey', KEY_IN_BROWSER);
    const page = (globalThis as { document?: { baseURI?: string } }).document?.baseURI;
    // No key travels from a page, so plain http (a development server) is allowed.
    return { apiKey: undefined, baseURL: validateBaseURL(new URL(options.baseURL, page).href, true) };
  }
  const apiKey = options.apiKey ?? env('AVATAR_VIDEO_API_KEY');
  if (!apiKey) throw new AvatarVideoError('Missing API key: pass { apiKey } (a secret of the Worker or the function).');
  checkKeyCharacters(apiKey);
  return { apiKey, baseURL: validateBaseURL(options.baseURL, options.allowInsecureHttp ?? false) };
}

/**
 * The avatar video API client for Cloudflare Workers, Vercel Edge and browsers: requests go through `fetch`, inputs
 * are bytes (a `File` from a form, a `Uint8Array`, a stream), checked locally before any upload.
 *
 * @example
 * // A Worker
 * const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
 * const video = await client.videos.create({ audio_reference: form.get('audio') as File, image_reference: form.get('image') as File });
 * @example
 * // A page, through avatar-video/proxy mounted at /api/avatar
 * const client = new AvatarVideo({ baseURL: '/api/avatar' });
 */
export class AvatarVideo {
  /** Video jobs: create, retrieve, list, content, and the waits built on them. */
  readonly videos: Videos;
  /** The service address (or the proxy's), with a trailing slash. */
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxRetryDelay: number;
  /** The local media limits in force. */
  readonly limits: { maxAudioSeconds: number };
  /** @internal */
  readonly logger: Logger;
  readonly #transport: Transport;
  readonly #limiter: ConcurrencyLimiter;

  constructor(options: ClientOptions) {
    checkOptions('new AvatarVideo', options, "{ baseURL: 'https://api.example.com', apiKey }");
    checkOptions('new AvatarVideo', options.limits, undefined, 'limits');
    const { apiKey, baseURL } = credentials(options);
    this.baseURL = baseURL.href;
    const level = options.logLevel;
    const settings = clientSettings(options, level);
    this.timeout = settings.timeout;
    this.maxRetries = settings.maxRetries;
    this.maxRetryDelay = settings.maxRetryDelay;
    this.limits = settings.limits;
    this.#limiter = settings.limiter;
    this.logger = settings.logger;
    this.#transport = new Transport({
      apiKey: apiKey ?? '',
      baseURL: this.baseURL,
      // A page's fetch may not set user-agent; the proxy's server sends its own.
      headers: { ...(apiKey ? { 'user-agent': `avatar-video/${VERSION} web` } : {}), accept: 'application/json', ...options.headers },
      http: apiKey ? fetchClient(apiKey, options.fetch) : fetchClient('', pageFetch(options.fetch ?? globalThis.fetch.bind(globalThis))),
      logger: this.logger,
      debug: level === 'debug',
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      maxRetryDelay: this.maxRetryDelay,
    });
    this.videos = Videos.build(this.#transport, this.limits, this.#limiter, apiKey === undefined);
  }

  /** The client's limit on jobs running at once, now: `{ limit, running, lastThrottle? }`. */
  get jobConcurrency(): JobConcurrency {
    return this.#limiter.snapshot();
  }

  /** A safe summary for logs and JSON: never the key. */
  toJSON(): Record<string, unknown> {
    return { baseURL: this.baseURL, timeout: this.timeout, maxRetries: this.maxRetries, maxRetryDelay: this.maxRetryDelay };
  }
}

/**
 * Types users meet inside a value they already hold (an error's details, an option's value) rather than build or pass
 * whole: named as `AvatarVideo.MediaValidationIssue`, as on the Node entry.
 */
export declare namespace AvatarVideo {
  export type { APIErrorDetail, ConnectionProblem, ErrorOrigin, LogLevel, MediaIssueCode, MediaValidationIssue };
}
