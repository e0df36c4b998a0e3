/**
 * `avatar-video mcp --http`: the MCP server over Streamable HTTP, on 127.0.0.1 only, one endpoint (`/mcp`).
 *
 * Stateful sessions, one `McpServer` (from the one factory) per session: the server asks its client for `roots/list`
 * and is told when the roots change, which needs the client's answers to reach the server that asked, so sessions are
 * kept in memory by id; a stateless server would lose them between requests. A session with nothing open for
 * `sessionIdleMs` is closed (session-expiry.ts), so that clients leaving without DELETE do not pile up.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { checkLoopbackRequest } from './loopback-guard.js';
import { RecentJobs } from './recent-jobs.js';
import { clean } from './results.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { SESSION_IDLE_MS, type SessionActivity, sessionExpired, sweepEveryMs } from './session-expiry.js';

/** The one path the server answers. */
export const MCP_PATH = '/mcp';

/** What `--http` needs beyond the server's own options. */
export interface HttpOptions extends McpServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** How long a session with no request or stream open is kept (session-expiry.ts); 30 minutes unless a test says. */
  sessionIdleMs?: number | undefined;
}

/** One session: its transport and server, and its use, by which an idle one is closed. */
interface Session extends SessionActivity {
  transport: StreamableHTTPServerTransport;
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
  const http = createServer((req, res) => {
    handle(req, res, sessions, shared).catch((error: unknown) => {
      options.log(clean(`mcp --http: ${req.method} failed: ${error instanceof Error ? error.message : String(error)}`));
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    });
  });
  await listen(http, options.port);
  const { port } = http.address() as AddressInfo;
  const sweeper = sweepIdle(sessions, options.sessionIdleMs ?? SESSION_IDLE_MS, options.log);
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    close: () => {
      clearInterval(sweeper);
      return closeAll(http, sessions);
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, sessions: Sessions, options: McpServerOptions): Promise<void> {
  const refusal = checkLoopbackRequest({ host: req.headers.host, origin: req.headers.origin });
  if (refusal) {
    // Said on stderr too: the person whose browser-based client is refused reads the server's log, not the 403.
    options.log(`mcp --http: refused a ${req.method} request with 403: ${refusal.reason}`);
    return reply(res, 403, `refused: ${refusal.reason}`);
  }
  if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== MCP_PATH) {
    return reply(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
  }
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const session = sessions.get(id);
    // 404 is how the protocol tells a client its session is gone, so that it initializes again.
    if (!session) return reply(res, 404, 'session not found: it ended, expired or the server restarted; initialize again', -32001);
    track(session, res);
    return session.transport.handleRequest(req, res);
  }
  if (req.method !== 'POST') return reply(res, 400, 'no Mcp-Session-Id: start a session with an initialize POST');
  return openSession(req, res, sessions, options);
}

/** A request without a session: the transport answers it, and keeps a session only if it was an initialize. */
async function openSession(req: IncomingMessage, res: ServerResponse, sessions: Sessions, options: McpServerOptions): Promise<void> {
  const server = createMcpServer(options);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => {
      const session: Session = { transport, close: () => server.close(), open: 0, lastActiveMs: Date.now() };
      sessions.set(id, track(session, res));
    },
    onsessionclosed: (id) => void sessions.delete(id),
  });
  // Set before connect, which chains it: the server's own close handler (aborting calls in flight) runs too.
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res);
  if (transport.sessionId === undefined) await server.close();
}

/** Count `res` as open in `session` until it closes: a call being answered, or an SSE stream. */
function track(session: Session, res: ServerResponse): Session {
  session.open += 1;
  session.lastActiveMs = Date.now();
  res.once('close', () => {
    session.open -= 1;
    session.lastActiveMs = Date.now();
  });
  return session;
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
function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function listen(http: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/** Close every session (ending its SSE streams), then the server and any connection still open. */
async function closeAll(http: Server, sessions: Sessions): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  await Promise.allSettled(open.map((session) => session.transport.close()));
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeAllConnections();
  await closed;
}
