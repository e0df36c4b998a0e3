/**
 * MSW handlers for the whole API plus a separate CDN origin, driven by a {@link MockState}. Only the loopback
 * servers of index.ts run them (a user's own setupServer would not reach the SDK's undici requests).
 *
 * Where the spec (shared/spec/api-spec.md) is silent, the mock chooses; its error codes are MOCK_ERROR_CODES, its
 * FastAPI-style 422 answers MOCK_VALIDATION_ERRORS (responses.ts).
 *
 * - Every response has `x-request-id: req_<hex>`. failNext() injections are answered first, before auth, like a
 *   gateway in front of the service. Every /v1 path needs the key.
 * - POST /v1/videos (create.ts) stops at the first step that fails: the multipart body; the declared parts (every
 *   problem in one 422); unknown or repeated fields, both or no visual references; preview access for
 *   video_reference (before the bytes are read: it is a permission); format by magic bytes, then duration
 *   (measure.ts) within the inclusive ranges of rules.ts; last, concurrencyLimit. aspect_ratio is 9:16 when the
 *   reference is taller than wide, else 16:9.
 * - A video not yet final (QUEUED, PROCESSING or a status forced by setVideo), in the create answer and
 *   GET /v1/videos/:id, carries `x-poll-after: <pollAfterMs / 1000>`.
 * - GET /v1/videos/:id/content: 409 unless COMPLETE, else a redirect to `<cdn>/files/<id>.mp4?sig=<hex>` (with
 *   sameOriginHop, first to /v1/videos/:id/content/hop, which checks the key again). The CDN refuses x-api-key (a
 *   client must not carry it to another origin) and a sig it did not issue, else serves the job's MP4
 *   (render-output.ts), rendered on the first download and cached on the job, with byte ranges (cdn.ts).
 * - GET /v1/videos is list.ts; anything else on either origin is 404 not_found.
 */
import type { http as Http, HttpHandler } from 'msw';
import { serveFile } from './cdn.js';
import { createVideo } from './create.js';
import { LANDSCAPE_MP4, PORTRAIT_MP4 } from './fixtures.generated.js';
import { listVideos } from './list.js';
import { renderOutput } from './render-output.js';
import { errorResponse, injectedResponse, jsonResponse, reject, rescue, withRequestId } from './responses.js';
import type { MockState, MockVideo, RecordedRequest } from './state.js';

type Origin = RecordedRequest['origin'];
type Resolver = (request: Request, url: URL, id: string) => Response | Promise<Response>;
type RouteParams = Record<string, string | readonly string[] | undefined>;

/** The routes of both origins (`http://127.0.0.1:<port>`, as node-server.ts gives them), made with msw's `http`. */
export function createHandlers(http: typeof Http, state: MockState, base: Record<Origin, string>): HttpHandler[] {
  // The content route and its hop: only a COMPLETE video has a file to point at.
  const content =
    (hop: boolean): Resolver =>
    (_request, _url, id) => {
      const video = findVideo(state, id);
      if (video.status !== 'COMPLETE') {
        reject('video_not_ready', `Video '${id}' is ${video.status}; its content can be downloaded only once it is COMPLETE.`);
      }
      const location = hop
        ? `${base.api}/v1/videos/${encodeURIComponent(id)}/content/hop`
        : `${base.cdn}/files/${id}.mp4?sig=${state.sign(id)}`;
      return new Response(null, { status: state.options.redirectStatus, headers: { location } });
    };
  const serveFromCdn: Resolver = (request, url) => serveCdn(state, request, url);
  const notFound: Resolver = (request, url) => errorResponse('not_found', `No route for ${request.method} ${url.pathname}.`);
  const routes: Array<['all' | 'get' | 'head' | 'post', Origin, string, Resolver]> = [
    ['post', 'api', '/v1/videos', async (request) => videoResponse(state, await createVideo(request, state))],
    ['get', 'api', '/v1/videos', (_request, url) => listVideos(state, url)],
    ['get', 'api', '/v1/videos/:id', (_request, _url, id) => videoResponse(state, findVideo(state, id))],
    ['get', 'api', '/v1/videos/:id/content', content(state.options.sameOriginHop)],
    ['get', 'api', '/v1/videos/:id/content/hop', content(false)],
    ['get', 'cdn', '/files/:name', serveFromCdn],
    ['head', 'cdn', '/files/:name', serveFromCdn],
    ['all', 'api', '/*', notFound],
    ['all', 'cdn', '/*', notFound],
  ];
  return routes.map(([method, origin, path, resolver]) => http[method](`${base[origin]}${path}`, frontDoor(state, origin, resolver)));
}

/** The shared front door of every route: record (the key redacted), inject, authenticate, stamp the request id. */
function frontDoor(state: MockState, origin: Origin, resolver: Resolver) {
  return async ({ request, params }: { request: Request; params: RouteParams }): Promise<Response> => {
    const url = new URL(request.url);
    const key = request.headers.get('x-api-key');
    const valid = key === state.options.apiKey;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = name === 'x-api-key' ? '[redacted]' : value;
    });
    const { method } = request;
    const record: RecordedRequest = { origin, method, path: url.pathname, hasApiKey: key !== null, apiKeyValid: valid, headers };
    state.requests.push(record);
    const answer = async (): Promise<Response> => {
      const injected = state.takeFailure(method, url.pathname);
      if (injected) return injectedResponse(injected);
      if (origin === 'api' && /^\/v1(\/|$)/.test(url.pathname) && !valid) {
        return key === null
          ? errorResponse('missing_api_key', 'Send your API key in the x-api-key header.')
          : errorResponse('invalid_api_key', 'The API key in x-api-key is not valid.');
      }
      return resolver(request, url, typeof params.id === 'string' ? params.id : '');
    };
    try {
      const response = withRequestId(await answer().catch(rescue));
      record.status = response.status;
      return response;
    } catch (error) {
      record.status = 500; // what node-server.ts answers for a handler that threw
      throw error;
    }
  };
}

function findVideo(state: MockState, id: string): MockVideo {
  return state.getVideo(id) ?? reject('video_not_found', `No video with id '${id}'.`);
}

/** The file host: no key, a signature it issued, then the job's rendered MP4. */
async function serveCdn(state: MockState, request: Request, url: URL): Promise<Response> {
  if (request.headers.has('x-api-key')) {
    reject('credentials_forwarded', 'This CDN request carried x-api-key. Credentials must not be sent to another origin.');
  }
  const id = /^\/files\/(.+)\.mp4$/.exec(url.pathname)?.[1] ?? '';
  const video = state.getVideo(id) ?? reject('not_found', `No file at ${url.pathname}.`);
  if (!state.verify(id, url.searchParams.get('sig')))
    reject('invalid_signature', 'The sig query parameter is missing or was not issued for this file.');
  const fixture = video.aspect_ratio === '9:16' ? PORTRAIT_MP4 : LANDSCAPE_MP4;
  return serveFile(request, await state.output(id, () => renderOutput(fixture, state.audioSeconds(id) ?? 1, id)));
}

/** The statuses a job ends in; any other (QUEUED, PROCESSING, one a test forced) is still on its way. */
const FINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);

/** A video as JSON; until final with `x-poll-after` (seconds), so an SDK wait polls every pollAfterMs, not every 2 s. */
function videoResponse(state: MockState, video: MockVideo): Response {
  const { pollAfterMs } = state.options;
  const hint = pollAfterMs !== null && !FINAL.has(video.status);
  return jsonResponse(video, 200, hint ? { 'x-poll-after': String(pollAfterMs / 1000) } : undefined);
}
