/**
 * The relay's HTTP API: `POST /watches` registers a watch, `GET /watches/{id}` tells its state. Every request
 * carries the bearer token; every answer is JSON, errors as `{ "error": { "type", "message" } }`. Web-standard
 * `Request`s answered with `Response`s, served by `@hono/node-server` as `mcp --http` is: no socket code of ours.
 */
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { InvalidArgumentError } from '../../index.js';
import { bearerMatches } from './auth.js';
import { MAX_BODY_BYTES, parseWatchRequest, readBody } from './body.js';
import type { WatchStore } from './watches.js';

export interface RelayHttpOptions {
  host: string;
  /** 0 picks a free one. */
  port: number;
  token: string;
  store: WatchStore;
  log(line: string): void;
  /** Takes the key, the secret and the token out of a message before it is logged. */
  scrub(text: string): string;
}

export interface RelayHttp {
  /** `http://host:port`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** A watch id in a path: what `watchJob` makes (`watch-` and hex), or near it; anything else is no watch. */
const WATCH_PATH = /^\/watches\/([A-Za-z0-9_-]{1,200})$/;

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

const refusal = (status: number, type: string, message: string, extra: Record<string, unknown> = {}, headers = {}) =>
  answer(status, { error: { type, message, ...extra } }, headers);

/** Listen on `host:port`. Rejects as `listen` does (EADDRINUSE, EACCES...). */
export async function startRelayHttp(options: RelayHttpOptions): Promise<RelayHttp> {
  const fetch = (request: Request) =>
    route(request, options).catch((error: unknown) => {
      const path = new URL(request.url).pathname;
      options.log(`error: ${request.method} ${path}: ${options.scrub(String((error as Error)?.message ?? error))}`);
      return refusal(500, 'server_error', 'the relay could not do it (is Redis reachable?); the reason is on its log');
    });
  const server = createAdaptorServer({ fetch, hostname: options.host });
  // A request that trickles in holds a socket: the whole of one (16 KB at most) gets 30 s.
  Object.assign(server, { requestTimeout: 30_000, headersTimeout: 15_000 });
  await listen(server, options.host, options.port);
  const { port } = server.address() as { port: number };
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      return closed;
    },
  };
}

function listen(server: ServerType, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function route(request: Request, options: RelayHttpOptions): Promise<Response> {
  const path = new URL(request.url).pathname;
  const watch = WATCH_PATH.exec(path)?.[1];
  const allowed = path === '/watches' ? 'POST' : watch !== undefined ? 'GET' : undefined;
  if (allowed === undefined) return refusal(404, 'not_found', 'no such path: the relay serves POST /watches and GET /watches/{id}');
  if (request.method !== allowed) return refusal(405, 'method_not_allowed', `${path} takes ${allowed}`, {}, { allow: allowed });
  if (!bearerMatches(request.headers.get('authorization') ?? undefined, options.token)) {
    const message = 'send the relay token: Authorization: Bearer $AVATAR_VIDEO_RELAY_TOKEN';
    return refusal(401, 'unauthorized', message, {}, { 'www-authenticate': 'Bearer' });
  }
  if (watch === undefined) return register(request, options);
  const view = await options.store.describe(watch);
  return view ? answer(200, view) : refusal(404, 'not_found', `no watch ${watch}: never made, or removed 7 days after it ended`);
}

async function register(request: Request, options: RelayHttpOptions): Promise<Response> {
  const read = await readBody(request);
  if ('problem' in read) {
    const message = `the body is over ${MAX_BODY_BYTES / 1024} KB: a watch is {"video_id", "notify_url"}`;
    return refusal(413, 'body_too_large', message, {}, { connection: 'close' });
  }
  const parsed = parseWatchRequest(read.text);
  if ('message' in parsed) return refusal(400, 'invalid_request', parsed.message, parsed.field ? { field: parsed.field } : {});
  try {
    const { created, watch } = await options.store.register(parsed.video_id, parsed.notify_url);
    if (created) options.log(`watch ${watch.id} of ${watch.video_id} registered`);
    return answer(created ? 202 : 200, watch);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    const field = error.argument === 'videoId' ? 'video_id' : error.argument === 'notifyUrl' ? 'notify_url' : error.argument;
    // `watchJob` words its problems for a JavaScript caller ("watchJob: notifyUrl must ..."): said here with the JSON name.
    const message = error.message.replace(/^watchJob: /, '').replace(/^(videoId|notifyUrl)\b/, field);
    return refusal(400, 'invalid_request', message, { field });
  }
}
