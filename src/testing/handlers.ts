/**
 * MSW handlers for the whole API plus a separate CDN origin, driven by a {@link MockState}. Only the loopback
 * servers of index.ts run them (a user's own setupServer would not reach the SDK's undici requests).
 *
 * The spec (shared/spec/api-spec.md) leaves error statuses, bodies, the list endpoint and the
 * content redirect unspecified. Where it is silent, the mock chooses:
 *
 * - Every response has `x-request-id: req_<hex>`. Errors are `{ "error": { "code", "message" } }`;
 *   codes and statuses are listed in MOCK_ERROR_CODES (responses.ts). Request validation, which the real
 *   service leaves to FastAPI, is 422 `{ "detail": [{ type, loc, msg, input }] }` instead: MOCK_VALIDATION_ERRORS.
 * - failNext() injections are answered first, before auth, like a gateway in front of the service.
 * - Auth on every /v1 path: no `x-api-key` -> 401 missing_api_key, another key -> 401 invalid_api_key.
 * - POST /v1/videos checks, stopping at the first step that fails, in this order: multipart body (400
 *   invalid_multipart); the declared parts, all problems in one 422 (no audio_reference: missing,
 *   a reference sent as text: value_error, an unknown model: literal_error); unknown field (400),
 *   repeated field (400 duplicate_field), both visual references (400), none (400),
 *   preview access for video_reference (403, checked before the bytes are read: it is a permission),
 *   format by magic bytes (400 unsupported_format, sniff.ts), duration by the mock's own header readers
 *   (measure.ts: 400 unreadable_media, 422 duration_out_of_range outside the ranges of rules.ts, inclusive).
 *   aspect_ratio is 9:16 when the reference is taller than wide, else 16:9.
 *   Last, with concurrencyLimit jobs PROCESSING: 429 rate_limit_exceeded, Retry-After = seconds until the first ends.
 * - Job state comes from the mock clock: PROCESSING with progress floor(elapsed / processingMs * 100)
 *   capped at 99 (bent by progressNoise, see progress.ts), then the enqueued outcome (default COMPLETE:
 *   progress 100, completed_at set; with rateLimitFailureRate, that share of jobs FAILED with
 *   rate_limit_exceeded, drawn from `seed`). A PROCESSING video (GET /v1/videos/:id and the create answer)
 *   carries `x-poll-after: <pollAfterMs / 1000>` unless pollAfterMs is null.
 *   FAILED and CANCELLED keep the progress they reached and completed_at null.
 * - GET /v1/videos (list.ts), as the service's OpenAPI description has it: a bare array, no has_more and
 *   no cursor; `order` desc (default, newest first) or asc; `after` = strictly after that video in the
 *   order asked; `limit` 1..100 (default 20). A bad limit or order is FastAPI's 422
 *   `{ detail: [{ loc: ['query', 'limit'], msg, type }] }`; an unknown `after` is 400 invalid_after.
 * - GET /v1/videos/:id/content: 409 video_not_ready (naming the status) unless COMPLETE, else
 *   `redirectStatus` to `<cdn>/files/<id>.mp4?sig=<hex>`; with sameOriginHop it first goes to
 *   /v1/videos/:id/content/hop on the API origin, which checks the key again.
 * - CDN GET/HEAD /files/<id>.mp4: 400 credentials_forwarded if x-api-key is present (a client must
 *   not carry the key to another origin), 403 invalid_signature without a sig from a redirect,
 *   else the finished video with byte ranges (cdn.ts): an MP4 as long as the job's audio, made from the 720p
 *   fixture of its aspect ratio and tagged `provenance: avatar-video-mock; job=<id>` (render-output.ts),
 *   rendered on the first download and cached on the job.
 * - Anything else on either origin: 404 not_found.
 */
import type { HttpHandler } from 'msw';
import { serveFile } from './cdn.js';
import { createVideo } from './create.js';
import { LANDSCAPE_MP4, PORTRAIT_MP4 } from './fixtures.generated.js';
import { listVideos } from './list.js';
import { loadMsw } from './msw.js';
import { renderOutput } from './render-output.js';
import { errorResponse, injectedResponse, jsonResponse, withRequestId } from './responses.js';
import type { MockState, MockVideo, RecordedRequest } from './state.js';

const { http } = loadMsw();

/** Absolute origins the handlers answer for, e.g. `http://127.0.0.1:4010` (no trailing slash). */
export interface MockOrigins {
  api: string;
  cdn: string;
}

type Resolver = (request: Request, url: URL, id: string) => Response | Promise<Response>;
type RouteParams = Record<string, string | readonly string[] | undefined>;

export function createHandlers(state: MockState, origins: MockOrigins): HttpHandler[] {
  const api = origins.api.replace(/\/+$/, '');
  const cdn = origins.cdn.replace(/\/+$/, '');
  const route = (origin: RecordedRequest['origin'], resolver: Resolver) => frontDoor(state, origin, resolver);
  const toCdn = (video: MockVideo) => `${cdn}/files/${video.id}.mp4?sig=${state.sign(video.id)}`;
  const redirect = (location: string) => new Response(null, { status: state.options.redirectStatus, headers: { location } });
  const serveFromCdn: Resolver = (request, url) => serveCdn(state, request, url);
  const notFound: Resolver = (request, url) => errorResponse('not_found', `No route for ${request.method} ${url.pathname}.`);

  return [
    http.post(
      `${api}/v1/videos`,
      route('api', async (request) => withPollHint(await createVideo(request, state), state)),
    ),
    http.get(
      `${api}/v1/videos`,
      route('api', (_request, url) => listVideos(state, url)),
    ),
    http.get(
      `${api}/v1/videos/:id`,
      route('api', (_request, _url, id) => {
        const video = findVideo(state, id);
        return video instanceof Response ? video : withPollHint(jsonResponse(video), state, video);
      }),
    ),
    http.get(
      `${api}/v1/videos/:id/content`,
      route('api', (_request, _url, id) => {
        const video = completeVideo(state, id);
        if (video instanceof Response) return video;
        return redirect(state.options.sameOriginHop ? `${api}/v1/videos/${encodeURIComponent(id)}/content/hop` : toCdn(video));
      }),
    ),
    http.get(
      `${api}/v1/videos/:id/content/hop`,
      route('api', (_request, _url, id) => {
        const video = completeVideo(state, id);
        return video instanceof Response ? video : redirect(toCdn(video));
      }),
    ),
    http.get(`${cdn}/files/:name`, route('cdn', serveFromCdn)),
    http.head(`${cdn}/files/:name`, route('cdn', serveFromCdn)),
    http.all(`${api}/*`, route('api', notFound)),
    http.all(`${cdn}/*`, route('cdn', notFound)),
  ];
}

/** The shared front door of every route: record, inject, authenticate, stamp the request id. */
function frontDoor(state: MockState, origin: RecordedRequest['origin'], resolver: Resolver) {
  return async ({ request, params }: { request: Request; params: RouteParams }): Promise<Response> => {
    const url = new URL(request.url);
    const key = request.headers.get('x-api-key');
    const valid = key === state.options.apiKey;
    const record = recordRequest(state, origin, request, url, valid);
    const answer = async (): Promise<Response> => {
      const injected = state.takeFailure(request.method, url.pathname);
      if (injected) return injectedResponse(injected);
      if (origin === 'api' && /^\/v1(\/|$)/.test(url.pathname) && !valid) {
        return key === null
          ? errorResponse('missing_api_key', 'Send your API key in the x-api-key header.')
          : errorResponse('invalid_api_key', 'The API key in x-api-key is not valid.');
      }
      return resolver(request, url, typeof params.id === 'string' ? params.id : '');
    };
    try {
      const response = withRequestId(await answer());
      record.status = response.status;
      return response;
    } catch (error) {
      record.status = 500; // what node-server.ts answers for a handler that threw
      throw error;
    }
  };
}

/** Keep the request in `state.requests`, the key redacted; its status is filled in once answered. */
function recordRequest(state: MockState, origin: RecordedRequest['origin'], request: Request, url: URL, apiKeyValid: boolean) {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = name === 'x-api-key' ? '[redacted]' : value;
  });
  const record: RecordedRequest = {
    origin,
    method: request.method,
    path: url.pathname,
    hasApiKey: request.headers.has('x-api-key'),
    apiKeyValid,
    headers,
  };
  state.requests.push(record);
  return record;
}

function findVideo(state: MockState, id: string): MockVideo | Response {
  return state.getVideo(id) ?? errorResponse('video_not_found', `No video with id '${id}'.`);
}

/** The content route and the hop share this: only a COMPLETE video has a file to point at. */
function completeVideo(state: MockState, id: string): MockVideo | Response {
  const video = findVideo(state, id);
  if (video instanceof Response || video.status === 'COMPLETE') return video;
  return errorResponse('video_not_ready', `Video '${id}' is ${video.status}; its content can be downloaded only once it is COMPLETE.`);
}

/** The file host: no key, a signature it issued, then the job's rendered MP4 (byte ranges in cdn.ts). */
async function serveCdn(state: MockState, request: Request, url: URL): Promise<Response> {
  if (request.headers.has('x-api-key')) {
    return errorResponse('credentials_forwarded', 'This CDN request carried x-api-key. Credentials must not be sent to another origin.');
  }
  const id = /^\/files\/(.+)\.mp4$/.exec(url.pathname)?.[1] ?? '';
  const video = state.getVideo(id);
  if (!video) return errorResponse('not_found', `No file at ${url.pathname}.`);
  if (!state.verify(id, url.searchParams.get('sig')))
    return errorResponse('invalid_signature', 'The sig query parameter is missing or was not issued for this file.');
  const fixture = video.aspect_ratio === '9:16' ? PORTRAIT_MP4 : LANDSCAPE_MP4;
  return serveFile(request, await state.output(id, () => renderOutput(fixture, state.audioSeconds(id) ?? 1, id)));
}

/**
 * Adds `x-poll-after` (seconds, decimals allowed) to the answer about a PROCESSING video, so that an SDK
 * wait against the mock polls every `pollAfterMs` rather than every 2 s. The create answer gets it too.
 */
function withPollHint(response: Response, state: MockState, video?: MockVideo): Response {
  const { pollAfterMs } = state.options;
  if (pollAfterMs === null || !response.ok) return response;
  if (video !== undefined && video.status !== 'PROCESSING') return response;
  response.headers.set('x-poll-after', String(pollAfterMs / 1000));
  return response;
}
