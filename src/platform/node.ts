import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Dispatcher } from 'undici';
import type * as Zod from 'zod';
import { AvatarVideoError } from '../errors.js';
import { checkKeyCharacters } from '../internal/api-key.js';
import { validateBaseURL } from '../internal/base-url.js';
import { chooseHttpClient } from '../internal/choose-http.js';
import type { CreateRate } from '../internal/create-rate.js';
import { createRateFromEnv } from '../internal/create-rate-env.js';
import { lazyRequire } from '../internal/lazy.js';
import type { Logger, LogLevel } from '../internal/logger.js';
import { encodeMultipart } from '../internal/multipart.js';
import type { CredentialOptions, Platform, StreamedBody } from '../internal/platform.js';
import type { RequestOptions } from '../internal/request-options.js';
import { runtimeName } from '../internal/runtime.js';
import type { MediaLimits } from '../lib/media/types.js';
import { VERSION } from '../version.js';
import { platform as runtime } from './node-runtime.js';

// The platform of Node, Bun and Deno: undici (or the runtime's fetch), the key and address from process.env, a video's
// bytes as a Node Readable, zod loaded with a synchronous `require` (Jest's CommonJS mode refuses `import()`), and
// node-runtime.ts's part (inputs, tracing, mediabunny), which the code below the client reaches as `#platform`.

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
  /**
   * The account's create rate, when you know it: `{ limit: 2, windowSeconds: 60 }` is the service's published 2
   * creates a minute per organization. Every create this client makes waits until the window has room, so none is
   * refused for the rate. Without it the client learns the rate from the service's 429 answers.
   * @default process.env.AVATAR_VIDEO_CREATE_RATE (`2/60`), else learned
   */
  createRate?: CreateRate | undefined;
  /**
   * The service's billing step, in seconds: each job is billed its output's length rounded up to a multiple of it.
   * `videos.plan` counts billed seconds with it and long audio is cut just below its multiples.
   * @default 6 (the step the service publishes)
   */
  billingIncrementSeconds?: number | undefined;
}

/** The MP4 of a finished video, as a stream. */
export interface VideoContent {
  /** The file's bytes. Consume or destroy it: it holds a connection until then. */
  body: Readable;
  /** Size in bytes, when the server said. */
  contentLength: number | undefined;
  contentType: string | undefined;
  /** The final URL after redirects (a signed CDN address: treat it as a secret of its own). */
  url: string;
}

/** The body of a content answer with its failures re-emitted as SDK errors (timeout, abort, connection), the original as `cause`. */
function contentBody(response: StreamedBody): Readable {
  // A fetch client's body is a web stream: a Node Readable here, at the Node platform's edge.
  const body = response.body instanceof Readable ? response.body : Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  body.on('error', (error) => out.destroy(response.fail(error)));
  body.on('close', () => response.done());
  out.on('close', () => body.destroy());
  body.pipe(out);
  return out;
}

function env(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

/** The key and the address: the options', else the environment's; both are required. */
function credentials(options: CredentialOptions) {
  const apiKey = options.apiKey ?? env('AVATAR_VIDEO_API_KEY');
  if (!apiKey)
    throw new AvatarVideoError(
      'Missing API key: pass { apiKey } or set AVATAR_VIDEO_API_KEY. To try without an account, run `npx avatar-video mock` and set the two variables it prints.',
    );
  checkKeyCharacters(apiKey);
  const baseURL = options.baseURL ?? env('AVATAR_VIDEO_BASE_URL');
  if (!baseURL) {
    throw new AvatarVideoError('Missing base URL: pass { baseURL } or set AVATAR_VIDEO_BASE_URL (the spec fixes no address).');
  }
  return {
    apiKey,
    baseURL: validateBaseURL(baseURL, options.allowInsecureHttp ?? false).href,
    logLevel: options.logLevel ?? env('AVATAR_VIDEO_LOG'),
    userAgent: `avatar-video/${VERSION} ${runtimeName()}`,
    createRate: createRateFromEnv(env('AVATAR_VIDEO_CREATE_RATE')),
  };
}

const zod = lazyRequire<typeof Zod>('zod');

/** @internal The runtime every client of this entry is built with (internal/platform.ts). */
export const platform: Platform = {
  optionsExample: undefined,
  credentials,
  http: ({ fetch, dispatcher, secret }) => chooseHttpClient({ fetch, dispatcher: dispatcher as Dispatcher | undefined, secret }),
  ...runtime,
  encodeMultipart,
  contentBody,
  loadZod: async () => zod(),
};
