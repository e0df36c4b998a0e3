import { scrub } from '../internal/redact.js';
import { isRedirect, MAX_REDIRECTS } from '../internal/redirect-rule.js';
import type { Video } from '../schemas.js';
import { errorAnswer, jsonAnswer, notRouted, readText } from './answers.js';
import { requestHeaders, responseHeaders } from './headers.js';
import { type ProxyOptions, type ResolvedProxyOptions, resolveOptions } from './options.js';
import { addressAnswer, badAddress, checkedAddress, readsAsText, relayed } from './relay.js';
import { matchRoute, type Route } from './routes.js';
import { guardUpload, tooLarge, type UploadRefusal } from './upload.js';

/** A web-standard request handler: a Next.js route handler, Hono's `c.req.raw`, a Worker's fetch, `Bun.serve`, `Deno.serve`. */
export type ProxyHandler = (request: Request) => Promise<Response>;

/** The most the proxy reads of an answer it must look into (a created video, an error); larger ones are refused. */
const MAX_READ_BYTES = 1 << 20;

/**
 * A handler that lets a browser use the API without the key: it forwards only the spec's four routes (matched on the
 * end of the path, so it can be mounted under any prefix), asks `authorize` about each call, adds the key, and strips
 * the browser's credentials. Options are checked here: a wrong one throws `InvalidArgumentError` at start.
 */
export function createProxyHandler(options: ProxyOptions): ProxyHandler {
  const resolved = resolveOptions(options);
  return async (request) => {
    const route = matchRoute(request.method, new URL(request.url));
    if (!route) return notRouted();
    try {
      if (!(await allowed(resolved, request, route))) return errorAnswer(403, 'forbidden', `This ${route.action} call is not allowed.`);
      return await forward(resolved, request, route);
    } catch (error) {
      resolved.onError(error, { action: route.action, videoId: route.videoId });
      return errorAnswer(500, 'internal_error', 'The proxy failed to handle this request.');
    }
  };
}

/** Whether `authorize` let the call through: `true` only; a throw counts as no. */
async function allowed(options: ResolvedProxyOptions, request: Request, { action, videoId }: Route): Promise<boolean> {
  try {
    return (await options.authorize(request, { action, videoId })) === true;
  } catch {
    return false;
  }
}

async function forward(options: ResolvedProxyOptions, request: Request, route: Route): Promise<Response> {
  if (route.action === 'create') return create(options, request);
  const headers = requestHeaders(request.headers, options.apiKey, route.action === 'content' ? ['accept'] : []);
  const url = new URL(route.apiPath, options.base);
  const answer = await send(options, route, url, { method: 'GET', headers, signal: request.signal });
  if (answer instanceof Unreachable) return answer.answer;
  return route.action === 'content' ? content(options, answer, url, headers, request) : passOn(options, answer, url);
}

/**
 * The upload, streamed to the API; refused before it is read when its declared length is over the limit, cut off
 * when it passes a limit on its way (upload.ts). Once its body has left, the browser going away no longer stops it.
 */
async function create(options: ResolvedProxyOptions, request: Request): Promise<Response> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > options.maxUploadBytes) return refused(tooLarge(options.maxUploadBytes));
  const upload = request.body ? guardUpload(request.body, request.signal, options.upload) : undefined;
  // redirect 'error': in any other mode fetch (undici's, so Node's) tees the body to replay it on a redirect, and the
  // branch never read holds the whole upload in memory (nodejs/undici#4058); the spec's create never redirects.
  const init = {
    method: 'POST',
    headers: requestHeaders(request.headers, options.apiKey),
    body: upload?.body ?? null,
    duplex: 'half' as const,
    redirect: 'error' as const,
    signal: upload?.signal ?? null,
  };
  const cutOff = () => upload?.refusal() !== undefined;
  const answer = await send(options, { action: 'create' }, new URL('v1/videos', options.base), init, cutOff);
  const refusal = upload?.refusal();
  if (refusal) {
    if (!(answer instanceof Unreachable)) await answer.body?.cancel();
    return refused(refusal);
  }
  if (answer instanceof Unreachable) return answer.answer;
  if (!answer.ok) return passOn(options, answer);
  return created(options, request, answer);
}

function refused({ status, code, message }: UploadRefusal): Response {
  return errorAnswer(status, code, message);
}

/** A 2xx create: the video read, handed to `onCreated`, and returned to the browser even if `onCreated` fails. */
async function created(options: ResolvedProxyOptions, request: Request, answer: Response): Promise<Response> {
  const text = await readText(answer.body, MAX_READ_BYTES);
  if (text === undefined) return unreadCreate(options, answer.status);
  const headers = responseHeaders(answer.headers, options.apiKey);
  const body = scrub(text, options.apiKey);
  let video: Video | undefined;
  try {
    video = JSON.parse(text) as Video;
    await options.onCreated?.(request, video);
  } catch (error) {
    options.onError(error, { action: 'create', createdVideoId: typeof video?.id === 'string' ? video.id : undefined });
  }
  return new Response(body, { status: answer.status, headers });
}

/** A 2xx create too large to read: a video was likely made and billed, and the app and the browser are told so. */
function unreadCreate(options: ResolvedProxyOptions, status: number): Response {
  const message = `The API answered the create ${status} with a body over ${MAX_READ_BYTES} bytes, too large to read: a video was likely made and billed; list the videos to find its id.`;
  options.onError(new Error(message), { action: 'create' });
  return errorAnswer(502, 'bad_gateway', message);
}

/**
 * The content route: the API's redirects on its own origin are followed here with the key; the first address on
 * another origin (the signed file) goes to the browser, as a redirect, or as `{"url"}` when it asked for JSON.
 */
async function content(options: ResolvedProxyOptions, first: Response, url: URL, headers: Headers, request: Request): Promise<Response> {
  let [answer, at] = [first, url];
  for (let hop = 0; isRedirect(answer.status); hop++) {
    const location = answer.headers.get('location');
    await answer.body?.cancel();
    const next = location === null ? undefined : checkedAddress(location, at, options.apiKey);
    if (!next || hop >= MAX_REDIRECTS) return badAddress('a redirect the proxy cannot follow');
    if (next.origin !== options.base.origin) return signed(answer.status, next, request);
    const sent = await send(options, { action: 'content' }, next, { method: 'GET', headers, signal: request.signal });
    if (sent instanceof Unreachable) return sent.answer;
    [answer, at] = [sent, next];
  }
  return answer.ok && readsAsText(answer) ? addressAnswer(answer, at, options.apiKey) : passOn(options, answer, at);
}

/** The signed file address (checked: relay.ts's `checkedAddress`), in the form the browser asked for. */
function signed(status: number, file: URL, request: Request): Response {
  const noStore = { 'cache-control': 'no-store' };
  if ((request.headers.get('accept') ?? '').includes('application/json')) return jsonAnswer(200, { url: file.href }, noStore);
  return new Response(null, { status, headers: { ...noStore, location: file.href } });
}

/** The API's answer to `at` on its way to the browser, of any status (relay.ts). */
function passOn(options: ResolvedProxyOptions, answer: Response, at: URL = options.base): Promise<Response> {
  return relayed(answer, at, options.apiKey);
}

/** The API could not be reached: what the browser gets instead. A class of its own, as a given `fetch` (undici's) may
 * answer with a `Response` class other than the global one. */
class Unreachable {
  constructor(readonly answer: Response) {}
}

/** One request to the API, its redirects left to the caller; a connection failure becomes a 502 that names no key. */
async function send(
  options: ResolvedProxyOptions,
  { action, videoId }: Pick<Route, 'action' | 'videoId'>,
  url: URL,
  init: RequestInit & { duplex?: 'half' },
  expected = () => false,
): Promise<Response | Unreachable> {
  try {
    return await options.fetch(url, { redirect: 'manual', ...init });
  } catch (error) {
    // The browser went away, or its upload was cut off: nothing for the app to look into.
    if (!init.signal?.aborted && !expected()) options.onError(error, { action, videoId });
    return new Unreachable(errorAnswer(502, 'api_unreachable', 'The proxy could not reach the video API.'));
  }
}
