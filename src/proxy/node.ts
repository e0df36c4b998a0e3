import { notRouted } from './answers.js';
import type { ProxyHandler } from './handler.js';

/**
 * The parts of node:http's `IncomingMessage` (and Express's request) the adapter reads. Declared here, not imported,
 * so the proxy entry loads no `node:` module and its types need no @types/node.
 */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express's full path, mount prefix included. */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  complete: boolean;
  /** A TLS socket has `encrypted: true`. */
  socket?: object | null | undefined;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event: 'data'): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
}

/** The parts of node:http's `ServerResponse` (and Express's response) the adapter writes. */
export interface NodeResponseLike {
  headersSent: boolean;
  writableFinished: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(error?: Error): unknown;
  once(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'close' | 'finish', listener: () => void): unknown;
}

/** A `node:http` request listener, or Express middleware (`next` gets a failure the handler could not answer). */
export type NodeHandler = (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => Promise<void>;

/** How long an unread upload is drained after the answer, so the browser reads the 413 before its socket is closed. */
const DRAIN_MS = 2_000;

/**
 * Adapts a proxy handler to `node:http` (`http.createServer(toNodeHandler(handler))`) and Express
 * (`app.use('/api/avatar', toNodeHandler(handler))`, before any body parser). Both directions stream with backpressure.
 */
export function toNodeHandler(handler: ProxyHandler): NodeHandler {
  return async (req, res, next) => {
    const gone = new AbortController();
    // The Request's signal follows `gone` only while the Request is reachable (undici holds it weakly, so a garbage
    // collection after the handler returned would cut the link): `gone` holds it until the answer ends.
    // Node builds no fetch Request for some methods (TRACE): those are answered as no route, before one is made.
    const request = UNMADE_METHODS.test(req.method ?? '') ? undefined : toRequest(req, gone.signal);
    const browserLeft = () => void request?.signal;
    gone.signal.addEventListener('abort', browserLeft, { once: true });
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    res.on('finish', () => drainUnread(req));
    try {
      await writeResponse(request ? await handler(request) : notRouted(), res, gone.signal);
    } catch (error) {
      if (next && !res.headersSent) next(error);
      else res.destroy(error instanceof Error ? error : undefined);
    } finally {
      gone.signal.removeEventListener('abort', browserLeft);
    }
  };
}

/** Methods fetch's `Request` refuses to be made with: no route takes them, so they are answered without one. */
const UNMADE_METHODS = /^(connect|trace|track)$/i;

function toRequest(req: NodeRequestLike, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!name.startsWith(':')) headers.append(name, req.rawHeaders[i + 1] as string); // HTTP/2 pseudo-headers are not headers
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? null : bodyStream(req);
  return new Request(requestURL(req), { method, headers, body, signal, duplex: 'half' } as RequestInit);
}

/** The request's address: its own path (a mount prefix included) on the host it was sent to. */
function requestURL(req: NodeRequestLike): string {
  const path = req.originalUrl ?? req.url ?? '/';
  const scheme = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https' : 'http';
  const host = typeof req.headers.host === 'string' ? req.headers.host : 'localhost';
  try {
    return new URL(path, `${scheme}://${host}`).href;
  } catch {
    return new URL(path, 'http://localhost').href; // a host header that is no host
  }
}

/** The upload as a web stream, read only as fast as the handler takes it (the socket is paused in between). */
function bodyStream(req: NodeRequestLike): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.pause();
      req.on('data', (chunk) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (open) controller.close();
        open = false;
      });
      req.on('error', (error) => {
        if (open) controller.error(error);
        open = false;
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      // Left paused: once the answer is written, drainUnread reads and drops the rest.
      open = false;
      req.pause();
    },
  });
}

/** An upload the answer came before (a 413, a 403): read and dropped for a while, then the connection is closed. */
function drainUnread(req: NodeRequestLike): void {
  if (req.complete) return;
  req.removeAllListeners('data');
  req.on('data', () => {});
  req.resume();
  const timer = setTimeout(() => req.destroy(), DRAIN_MS) as { unref?: () => void };
  timer.unref?.();
  req.on('end', () => clearTimeout(timer as Parameters<typeof clearTimeout>[0]));
}

/** The answer written with backpressure; the browser going away cancels its body (and so the API's request it relays). */
async function writeResponse(response: Response, res: NodeResponseLike, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (gone.aborted) {
    await response.body?.cancel();
    return;
  }
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  gone.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone.aborted) break;
      if (!res.write(value) && !(await drained(res, gone))) return;
    }
    if (!gone.aborted) res.end();
  } finally {
    gone.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}

/** Resolves true once `res` takes more, false if the browser went away first. */
function drained(res: NodeResponseLike, gone: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (more: boolean) => () => {
      res.off('drain', onDrain);
      gone.removeEventListener('abort', onGone);
      resolve(more);
    };
    const [onDrain, onGone] = [settle(true), settle(false)];
    if (gone.aborted) return resolve(false);
    res.once('drain', onDrain);
    gone.addEventListener('abort', onGone, { once: true });
  });
}
