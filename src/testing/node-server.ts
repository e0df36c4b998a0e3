import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorResponse, withRequestId } from './responses.js';

/** Answers one Fetch request; undefined means no handler matched. */
export type FetchHandler = (request: Request) => Promise<Response | undefined>;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that bridges node:http to Fetch Request/Response. It exists because
 * MSW's setupServer patches only the global fetch, while the SDK sends through the undici package.
 */
export async function listenLoopback(port: number, handle: FetchHandler): Promise<LoopbackServer> {
  const server = createServer({ keepAlive: true }, (req, res) => {
    void respond(req, res, origin, handle);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening'); // rejects on 'error', e.g. a port in use
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function respond(req: IncomingMessage, res: ServerResponse, origin: string, handle: FetchHandler): Promise<void> {
  const disconnected = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) disconnected.abort();
  });
  try {
    const response =
      (await handle(toRequest(req, origin, disconnected.signal))) ??
      withRequestId(errorResponse('not_found', `No route for ${req.method} ${req.url}.`));
    await send(response, res);
  } catch {
    // A handler threw, or the client went away mid-response: answer if still possible, else drop the socket.
    const failed = withRequestId(errorResponse('internal_error', 'The mock server failed to handle this request.'));
    if (res.headersSent || res.destroyed) res.destroy();
    else send(failed, res).catch(() => res.destroy());
  } finally {
    // A handler that answered without reading the upload (401, injected 429...): discard the rest of it
    // rather than buffer it, so a keep-alive connection moves on to the next request cheaply.
    if (!req.complete && !req.destroyed) {
      req.removeAllListeners('data');
      req.resume();
    }
  }
}

function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // Streamed in, not buffered: the handler reads as much as it needs.
  const body = hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : null;
  return new Request(`${origin}${req.url ?? '/'}`, { method: req.method, headers, body, signal, duplex: 'half' } as RequestInit);
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (response.body === null || res.req.method === 'HEAD') {
    await response.body?.cancel();
    res.end();
    return;
  }
  // Streamed out chunk by chunk with backpressure; rejects if the client disconnects.
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res);
}
