import { FormDataEncoder } from 'form-data-encoder';
import { AvatarVideoError, InvalidArgumentError } from '../errors.js';
import { checkKeyCharacters } from '../internal/api-key.js';
import { validateBaseURL } from '../internal/base-url.js';
import { isOneShot, openSource } from '../internal/byte-source.js';
import type { CreateRate } from '../internal/create-rate.js';
import { createRateFromEnv } from '../internal/create-rate-env.js';
import { type FetchFunction, fetchClient } from '../internal/fetch-send.js';
import { chunksOf } from '../internal/http-client.js';
import type { Logger, LogLevel } from '../internal/logger.js';
import { multipartBody } from '../internal/multipart-body.js';
import type { CredentialOptions, OperationScope, Platform, StreamedBody, TracingChannel } from '../internal/platform.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { MediaLimits } from '../lib/media/types.js';
import type { VideoModel } from '../schemas.js';
import { VERSION } from '../version.js';

// The platform of Cloudflare Workers, Vercel Edge and browsers: fetch, a key only on a server runtime (none in a page,
// whose base URL is avatar-video/proxy's, relative to the page), bytes as inputs (a stream read into memory), a video's
// bytes as a web ReadableStream, no tracing, and zod and mediabunny imported only when needed, each in a chunk of its
// own. Nothing here imports a `node:` module or undici.

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
  /**
   * The account's create rate, when you know it: `{ limit: 2, windowSeconds: 60 }` is the service's published 2
   * creates a minute per organization. Creates wait until the window has room; without it the rate is learned from
   * the service's 429 answers.
   * @default AVATAR_VIDEO_CREATE_RATE where the runtime has an environment (`2/60`), else learned
   */
  createRate?: CreateRate | undefined;
  /** The service's billing step, in seconds. @default 6 (the step the service publishes) */
  billingIncrementSeconds?: number | undefined;
}

// The create parameters of the web entry: those of the Node entry with bytes for files. Declared again rather than
// made generic: the published types of the web entry must not reach the Node entry's `Uploadable`, which names
// node:stream's Readable.

/** What a file of a create is given as on the web: bytes, never a path (there is no filesystem). */
export type WebUploadable = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

/** Create from a still image (`image_to_video`). */
export interface ImageToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: WebUploadable;
  /** Appearance image: JPEG or PNG. */
  image_reference: WebUploadable;
  /** Not with an image: send exactly one visual reference. */
  video_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/** Create from a video of the person (`video_to_video`), a gated preview. */
export interface VideoToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: WebUploadable;
  /** Appearance video: MP4 or MOV, 10 to 60 s. */
  video_reference: WebUploadable;
  /** Not with a video: send exactly one visual reference. */
  image_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/** Parameters of `videos.create` on the web: the driving audio and exactly one visual reference, as bytes. */
export type VideoCreateParams = ImageToVideoParams | VideoToVideoParams;

/** The MP4 of a finished video, as a web stream. */
export interface VideoContent {
  /** The file's bytes. Read it to its end or cancel it: it holds a connection until then. */
  body: ReadableStream<Uint8Array>;
  /** Size in bytes, when the server said. */
  contentLength: number | undefined;
  contentType: string | undefined;
  /** The final URL after redirects (a signed address: treat it as a secret of its own). */
  url: string;
}

/** The body of a content answer with its failures as SDK errors (timeout, abort, connection), the original as `cause`. */
function contentBody(response: StreamedBody): ReadableStream<Uint8Array> {
  const chunks = chunksOf(response.body)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await chunks.next();
          if (!done) return controller.enqueue(value);
          response.done();
          controller.close();
        } catch (error) {
          response.done();
          controller.error(response.fail(error));
        }
      },
      async cancel() {
        await chunks.return?.();
        response.release();
      },
    },
    { highWaterMark: 0 },
  );
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
function credentials(options: CredentialOptions) {
  if (typeof options.baseURL !== 'string' || options.baseURL === '') {
    throw new InvalidArgumentError('baseURL', "new AvatarVideo: pass { baseURL }: the API's address, or in a browser the proxy's.");
  }
  const logLevel = options.logLevel;
  if (inBrowser()) {
    if (options.apiKey !== undefined) throw new InvalidArgumentError('apiKey', KEY_IN_BROWSER);
    const page = (globalThis as { document?: { baseURI?: string } }).document?.baseURI;
    // No key travels from a page, so plain http (a development server) is allowed. A page's fetch may not set
    // user-agent; the proxy's server sends its own.
    const baseURL = validateBaseURL(new URL(options.baseURL, page).href, true).href;
    return { apiKey: undefined, baseURL, logLevel, userAgent: undefined, createRate: undefined };
  }
  const apiKey = options.apiKey ?? env('AVATAR_VIDEO_API_KEY');
  if (!apiKey) throw new AvatarVideoError('Missing API key: pass { apiKey } (a secret of the Worker or the function).');
  checkKeyCharacters(apiKey);
  const baseURL = validateBaseURL(options.baseURL, options.allowInsecureHttp ?? false).href;
  const createRate = createRateFromEnv(env('AVATAR_VIDEO_CREATE_RATE'));
  return { apiKey, baseURL, logLevel, userAgent: `avatar-video/${VERSION} web`, createRate };
}

/**
 * A page's `fetch` for the web client: a streamed request body gathered into a Blob first, as browsers send a stream
 * only over HTTP/2 (Chrome) or not at all (Firefox, Safari). The create's upload is then sent whole by the browser:
 * its progress reaches the total as the body is gathered.
 */
function pageFetch(fetch: FetchFunction): FetchFunction {
  return async (input, init) => {
    const { body } = init;
    if (!(body instanceof ReadableStream)) return fetch(input, init);
    const { duplex: _half, ...rest } = init as RequestInit & { duplex?: string };
    return fetch(input, { ...rest, body: await new Response(body).blob() });
  };
}

/** A channel nobody can subscribe to: the web has no diagnostics_channel; an instrumented `fetch` observes requests. */
const inert: TracingChannel<object> = { hasSubscribers: false, tracePromise: (call) => call() };
const noScope: OperationScope = { run: (_store, call) => call(), getStore: () => undefined };

/** @internal The runtime every client of this entry is built with (internal/platform.ts). */
export const platform: Platform = {
  optionsExample: "{ baseURL: 'https://api.example.com', apiKey }",
  credentials,
  // Without a key (a page behind the proxy), the page's fetch, which sends an upload whole.
  http: ({ fetch, secret }) =>
    secret ? fetchClient(secret, fetch) : fetchClient('', pageFetch(fetch ?? globalThis.fetch.bind(globalThis))),
  openSource,
  isOneShot,
  encodeMultipart: async (files, fields, onProgress) => {
    const { body, headers } = multipartBody(FormDataEncoder, files, fields, onProgress);
    return { stream: body, headers };
  },
  contentBody,
  tracingChannel: <P extends object>() => inert as TracingChannel<P>,
  operationScope: () => noScope,
  // Each in a chunk of its own: zod only for an answer the schemas' fast path does not take, mediabunny only for a
  // video reference probed.
  loadZod: () => import('zod'),
  loadMediabunny: () => import('mediabunny'),
};
