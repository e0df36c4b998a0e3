import { InvalidArgumentError } from '../errors.js';
import { isLoopbackHost } from '../internal/loopback.js';
import type { Video } from '../schemas.js';
import type { UploadLimits } from './upload.js';

/** What a browser asked the proxy to do: one per route of the API. */
export type ProxyAction = 'create' | 'retrieve' | 'list' | 'content';

/** The call {@link ProxyOptions.authorize} decides: its action and, but for `create` and `list`, the video's id. */
export interface ProxyCall {
  action: ProxyAction;
  /** The video the call is about (`retrieve`, `content`); undefined for `create` and `list`. */
  videoId?: string | undefined;
}

/** What went wrong where the browser cannot be told more: an `onCreated` that threw, an API the proxy could not reach. */
export interface ProxyErrorContext extends ProxyCall {
  /** Set when the failure came after the API created a video: that video exists and is paid for. */
  createdVideoId?: string | undefined;
}

export interface ProxyOptions {
  /** The API key, added to every request to the API and never sent back to the browser. Required. */
  apiKey: string;
  /** The API's address, e.g. `https://api.example.com` (paths start with `/v1`). Required: the spec fixes no address. */
  baseURL: string;
  /**
   * Decides every call, before anything is sent to the API: only `true` lets it through; anything else, or a throw,
   * is a 403. An app checks the request's session here, and for `retrieve` and `content` that the video is one the
   * user made (recorded in `onCreated`). `list` shows every video of the key, so allow it only to whom may see all.
   * Required: a proxy that decides nothing would spend the key for anyone who finds it.
   */
  authorize: (request: Request, call: ProxyCall) => boolean | Promise<boolean>;
  /**
   * Called after the API created a video and before the browser gets it: record who made it. If it throws, the
   * browser still gets the video (it is paid for) and the error goes to `onError` with the video's id.
   * @default no callback
   */
  onCreated?: ((request: Request, video: Video) => void | Promise<void>) | undefined;
  /**
   * Where failures the browser is not told about go: an `onCreated` that threw (with `createdVideoId`), an API that
   * could not be reached. Never given the key.
   * @default logs to console.error
   */
  onError?: ((error: unknown, context: ProxyErrorContext) => void) | undefined;
  /**
   * The largest upload body accepted, in bytes: a larger `Content-Length` is refused with 413 before the body is
   * read, and a body sent without one is cut off (413) as soon as it passes the limit.
   * @default 104857600 (100 MiB)
   */
  maxUploadBytes?: number | undefined;
  /**
   * Milliseconds an upload may send no byte while the proxy waits for it; then it is cut off with 408
   * `upload_timeout` and the API's request is aborted (so the API creates nothing). Time the API takes to read is
   * not counted.
   * @default 10000 (10 s)
   */
  uploadIdleTimeout?: number | undefined;
  /**
   * The fewest bytes a second an upload must send, measured over each `uploadRateWindow` of waiting for it: a slower
   * one is cut off with 408 `upload_too_slow` and the API's request is aborted. `0` sets no minimum.
   * @default 500
   */
  minUploadBytesPerSecond?: number | undefined;
  /**
   * Milliseconds of waiting for an upload that each `minUploadBytesPerSecond` check covers; the first is its grace time.
   * @default 20000 (20 s)
   */
  uploadRateWindow?: number | undefined;
  /**
   * Allow a plain-http `baseURL` on a host other than this machine (the key would travel in clear).
   * @default false
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * The fetch the proxy sends to the API with, e.g. an instrumented one.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch | undefined;
}

/** The options once checked: the base address ends with `/`, so `v1/...` resolves under any path it has. */
export interface ResolvedProxyOptions extends Required<Omit<ProxyOptions, 'onCreated' | 'baseURL' | 'allowInsecureHttp' | UploadBound>> {
  upload: UploadLimits;
  base: URL;
  onCreated: ProxyOptions['onCreated'];
}

type UploadBound = 'uploadIdleTimeout' | 'minUploadBytesPerSecond' | 'uploadRateWindow';

const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const UPLOAD_DEFAULTS = { uploadIdleTimeout: 10_000, minUploadBytesPerSecond: 500, uploadRateWindow: 20_000 };

/** Checks the options once, when the handler is made, so a misconfigured proxy fails at start rather than per request. */
export function resolveOptions(options: ProxyOptions): ResolvedProxyOptions {
  const { apiKey, authorize, onCreated, onError, maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES } = options ?? ({} as ProxyOptions);
  if (typeof apiKey !== 'string' || apiKey.trim() === '') throw new InvalidArgumentError('apiKey', 'createProxyHandler needs { apiKey }.');
  if (typeof authorize !== 'function') {
    throw new InvalidArgumentError(
      'authorize',
      'createProxyHandler needs { authorize }: without it anyone who finds the proxy spends your key.',
    );
  }
  for (const [name, value] of [
    ['onCreated', onCreated],
    ['onError', onError],
    ['fetch', options.fetch],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') throw new InvalidArgumentError(name, `${name} must be a function.`);
  }
  checkWhole('maxUploadBytes', maxUploadBytes, 1);
  const { uploadIdleTimeout, minUploadBytesPerSecond, uploadRateWindow } = { ...UPLOAD_DEFAULTS, ...defined(options) };
  checkWhole('uploadIdleTimeout', uploadIdleTimeout, 1);
  checkWhole('minUploadBytesPerSecond', minUploadBytesPerSecond, 0);
  checkWhole('uploadRateWindow', uploadRateWindow, 1);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return {
    apiKey,
    base: checkBaseURL(options.baseURL, options.allowInsecureHttp ?? false),
    authorize,
    onCreated,
    onError: onError ?? logError,
    maxUploadBytes,
    upload: {
      maxBytes: maxUploadBytes,
      idleTimeout: uploadIdleTimeout,
      minBytesPerSecond: minUploadBytesPerSecond,
      rateWindow: uploadRateWindow,
    },
    fetch: (input, init) => fetchImpl(input, init),
  };
}

/** The upload bounds `options` sets, those left undefined dropped so the defaults apply. */
function defined(options: ProxyOptions): Partial<Record<UploadBound, number>> {
  const keys = Object.keys(UPLOAD_DEFAULTS) as UploadBound[];
  return Object.fromEntries(keys.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
}

function checkWhole(name: string, value: unknown, least: number): void {
  if (!Number.isSafeInteger(value) || (value as number) < least) {
    throw new InvalidArgumentError(
      name,
      `${name} must be a whole number ${least === 0 ? 'of 0 or more' : `above ${least - 1}`}, got ${String(value)}.`,
    );
  }
}

function checkBaseURL(raw: unknown, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new InvalidArgumentError('baseURL', `createProxyHandler needs { baseURL }, the API's address; got ${JSON.stringify(raw)}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidArgumentError('baseURL', 'baseURL must be http(s).');
  if (url.username || url.password) throw new InvalidArgumentError('baseURL', 'baseURL must not contain credentials; pass apiKey instead.');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    throw new InvalidArgumentError(
      'baseURL',
      'baseURL uses plain http, which would send the API key in clear. Use https, or set allowInsecureHttp: true.',
    );
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function logError(error: unknown, context: ProxyErrorContext): void {
  const what = context.createdVideoId
    ? `video ${context.createdVideoId} was created and returned to the browser, but onCreated failed: record its owner by hand`
    : `${context.action} failed`;
  console.error(`avatar-video/proxy: ${what}.`, error);
}
