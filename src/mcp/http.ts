/**
 * `avatar-video mcp --http`: the MCP server over Streamable HTTP, on 127.0.0.1 only, one endpoint (`/mcp`).
 *
 * Stateful sessions, one `McpServer` (from the one factory) per session: the server asks its client for `roots/list`
 * and is told when the roots change, which needs the client's answers to reach the server that asked, so sessions are
 * kept in memory by id; a stateless server would lose them between requests. A session with nothing open for
 * `sessionIdleMs` is closed (session-expiry.ts), so that clients leaving without DELETE do not pile up.
 *
 * The SDK's web-standard transport answers `Request`s with `Response`s; `@hono/node-server` (the adapter the SDK's
 * own Node transport is built on) serves them, so no socket code of ours is here.
 */
import { randomUUID } from 'node:crypto';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { checkLoopbackRequest } from './loopback-guard.js';
import { RecentJobs } from './recent-jobs.js';
import { clean } from './results.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { SESSION_IDLE_MS, type SessionActivity, sessionExpired, sweepEveryMs } from './session-expiry.js';

/** The one path the server answers. */
const MCP_PATH = '/mcp';

/** What `--http` needs beyond the server's own options. */
export interface HttpOptions extends McpServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** How long a session with no request or stream open is kept (session-expiry.ts); 30 minutes unless a test says. */
  sessionIdleMs?: number | undefined;
}

/** One session: its transport and server, and its use, by which an idle one is closed. */
interface Session extends SessionActivity {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

type Sessions = Map<string, Session>;

/** A running HTTP server: its endpoint, and how to stop it (open sessions and their streams included). */
export interface HttpServer {
  url: string;
  close(): Promise<void>;
}

/** Serve until `signal` aborts, naming the endpoint on the log (stderr). Rejects as `listen` does (EADDRINUSE...). */
export async function runHttp(options: HttpOptions & { signal: AbortSignal }): Promise<void> {
  const server = await startHttp(options);
  options.log(`MCP server (Streamable HTTP) on ${server.url} — loopback only; Ctrl-C stops it`);
  try {
    if (!options.signal.aborted) {
      await new Promise((resolve) => options.signal.addEventListener('abort', resolve, { once: true }));
    }
  } finally {
    await server.close();
  }
}

/** Start listening on 127.0.0.1:`port`. */
export async function startHttp(options: HttpOptions): Promise<HttpServer> {
  const sessions: Sessions = new Map();
  // Every session's server lists the jobs of the whole process, whichever session made them.
  const shared = { ...options, recent: options.recent ?? new RecentJobs() };
  const fetch = (request: Request) =>
    handle(request, sessions, shared).catch((error: unknown) => {
      options.log(clean(`mcp --http: ${request.method} failed: ${error instanceof Error ? error.message : String(error)}`));
      return reply(500, 'internal error');
    });
  const http = createAdaptorServer({ fetch, hostname: '127.0.0.1' });
  await listen(http, options.port);
  const { port } = http.address() as { port: number };
  const sweeper = sweepIdle(sessions, options.sessionIdleMs ?? SESSION_IDLE_MS, options.log);
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    close: () => {
      clearInterval(sweeper);
      return closeAll(http, sessions);
    },
  };
}

async function handle(request: Request, sessions: Sessions, options: McpServerOptions): Promise<Response> {
  const headers = request.headers;
  const refusal = checkLoopbackRequest({ host: headers.get('host') ?? undefined, origin: headers.get('origin') ?? undefined });
  if (refusal) {
    // Said on stderr too: the person whose browser-based client is refused reads the server's log, not the 403.
    options.log(`mcp --http: refused a ${request.method} request with 403: ${refusal.reason}`);
    return reply(403, `refused: ${refusal.reason}`);
  }
  if (new URL(request.url).pathname !== MCP_PATH) return reply(404, `not found: the MCP endpoint is ${MCP_PATH}`);
  const id = headers.get('mcp-session-id');
  if (id !== null) {
    const session = sessions.get(id);
    // 404 is how the protocol tells a client its session is gone, so that it initializes again.
    if (!session) return reply(404, 'session not found: it ended, expired or the server restarted; initialize again', -32001);
    return tracked(session, () => session.transport.handleRequest(request));
  }
  if (request.method !== 'POST') return reply(400, 'no Mcp-Session-Id: start a session with an initialize POST');
  return openSession(request, sessions, options);
}

/** A request without a session: the transport answers it, and keeps a session only if it was an initialize. */
async function openSession(request: Request, sessions: Sessions, options: McpServerOptions): Promise<Response> {
  const server = createMcpServer(options);
  const session: Session = {
    transport: new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, session),
      onsessionclosed: (id) => void sessions.delete(id),
    }),
    close: () => server.close(),
    open: 0,
    lastActiveMs: Date.now(),
  };
  const { transport } = session;
  // Set before connect, which chains it: the server's own close handler (aborting calls in flight) runs too.
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  const response = await tracked(session, () => transport.handleRequest(request));
  if (transport.sessionId === undefined) await server.close();
  return response;
}

/** Count the exchange as open in `session` until its response body ends or is cancelled: a call, or an SSE stream. */
async function tracked(session: Session, answer: () => Promise<Response>): Promise<Response> {
  session.open += 1;
  session.lastActiveMs = Date.now();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    session.open -= 1;
    session.lastActiveMs = Date.now();
  };
  const response = await answer().catch((error: unknown) => {
    end();
    throw error;
  });
  if (!response.body) {
    end();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        end();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Every so often (unref'd: it never keeps the process up), close the sessions idle past `idleMs`. */
function sweepIdle(sessions: Sessions, idleMs: number, log: (line: string) => void): NodeJS.Timeout {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (!sessionExpired(session, now, idleMs)) continue;
      sessions.delete(id);
      log(`mcp --http: closed session ${id}, idle for ${Math.round(idleMs / 1000)} s with nothing open`);
      session.close().catch(() => {});
    }
  }, sweepEveryMs(idleMs));
  return timer.unref();
}

/** A JSON-RPC error body, as the SDK's own transport answers. */
function reply(status: number, message: string, code = -32000): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

function listen(http: ServerType, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/** Close every session (ending its SSE streams), then the server and any connection still open. */
async function closeAll(http: ServerType, sessions: Sessions): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  await Promise.allSettled(open.map((session) => session.transport.close()));
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  (http as { closeAllConnections?: () => void }).closeAllConnections?.();
  await closed;
}
