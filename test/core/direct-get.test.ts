import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../../src/errors.js';
import { type Declined, type DirectGetOptions, type DirectResponse, directGet, parseHead } from '../../src/internal/direct-get.js';

const SECRET = 'sk-direct-get-secret-4242';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// A raw TCP (or TLS) server: the test writes the response bytes itself and sees what the client does.
// ---------------------------------------------------------------------------------------------

interface Conn {
  socket: Socket;
  /** The request head as the server received it (up to, not including, the blank line). */
  request: Promise<string>;
  /** Resolves once the client's side is gone (FIN, reset or close). */
  closed: Promise<void>;
  isClosed(): boolean;
}

type Factory = (listener: (socket: Socket) => void) => Server;
const tcp: Factory = (listener) => createServer(listener);

const servers: Server[] = [];
const serverSockets = new Set<Socket>();
const responses: DirectResponse[] = [];

afterEach(async () => {
  for (const response of responses.splice(0)) response.close();
  for (const socket of serverSockets) socket.destroy();
  serverSockets.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

async function serve(handler: (conn: Conn) => unknown, factory: Factory = tcp) {
  const conns: Conn[] = [];
  const server = factory((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    serverSockets.add(socket);
    let closed = false;
    let text = '';
    const conn: Conn = {
      socket,
      request: new Promise<string>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          const end = text.indexOf('\r\n\r\n');
          if (end >= 0) resolve(text.slice(0, end));
        });
      }),
      closed: new Promise<void>((resolve) => {
        const done = () => {
          closed = true;
          resolve();
        };
        socket.once('end', done);
        socket.once('close', done);
      }),
      isClosed: () => closed,
    };
    conns.push(conn);
    Promise.resolve()
      .then(() => handler(conn))
      .catch(() => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, conns, url: (path = '/file.mp4', scheme = 'http') => new URL(`${scheme}://127.0.0.1:${port}${path}`) };
}

/** A port with nothing listening on it. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Fail (instead of hanging) when `promise` does not settle in time. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function head(status: number, headers: Record<string, string | number>, reason = 'OK'): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${reason}\r\n${lines.join('')}\r\n`;
}

function get(url: URL, headers: Record<string, string> = {}, options: Partial<DirectGetOptions> = {}) {
  return directGet(url, headers, { timeout: 1000, secret: SECRET, ...options });
}

/** The response, which must be plain; closed after the test in any case. */
function plain(result: DirectResponse | Declined): DirectResponse {
  if (!result.plain) throw new Error(`expected a plain response, got a decline with status ${result.status}`);
  responses.push(result);
  return result;
}

/** A sink that keeps a copy of every chunk (the read buffer is reused). */
function collector() {
  const chunks: Buffer[] = [];
  const originals: ArrayBufferLike[] = [];
  const sink = (chunk: Buffer): undefined => {
    chunks.push(Buffer.from(chunk));
    originals.push(chunk.buffer);
  };
  return { chunks, originals, sink, bytes: () => Buffer.concat(chunks) };
}

/** Read the whole body through a copying sink. */
async function readBody(response: DirectResponse): Promise<Buffer> {
  const sink = collector();
  await response.pipeTo(sink.sink);
  return sink.bytes();
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

// ---------------------------------------------------------------------------------------------

describe('directGet: plain responses', () => {
  it('resolves when the host closes while the sink is still busy with the last bytes', async () => {
    const body = randomBytes(100_000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.end(Buffer.concat([Buffer.from(head(200, { 'content-length': body.length })), body]));
    });
    const response = plain(await get(srv.url()));
    const { sink, bytes } = collector();
    await response.pipeTo((chunk) => {
      sink(chunk);
      return sleep(30); // the close arrives while this is pending
    });
    expect(bytes().equals(body)).toBe(true);
  });

  it('never hands the sink an empty chunk, even when the head arrives in a read of its own', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'content-length': 5 }));
      await sleep(30);
      c.socket.write('hello');
    });
    const response = plain(await get(srv.url()));
    const sizes: number[] = [];
    await response.pipeTo((chunk) => {
      sizes.push(chunk.length);
      return undefined;
    });
    expect(sizes).toEqual([5]);
  });

  it('delivers a multi-MiB body byte for byte through the one reused read buffer', async () => {
    const body = randomBytes(4 << 20);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Type': 'video/mp4', 'Content-Length': body.length }));
      c.socket.end(body);
    });
    const url = srv.url('/v/1.mp4');
    const response = plain(await get(url));
    expect(response.status).toBe(200);
    expect(response.length).toBe(body.length);
    expect(response.url).toBe(url);
    expect(response.headers).toMatchObject({ 'content-type': 'video/mp4', 'content-length': String(body.length) });

    const sink = collector();
    await response.pipeTo(sink.sink);
    const got = sink.bytes();
    expect(got.length).toBe(body.length);
    expect(got.equals(body)).toBe(true);
    expect(sink.chunks.length).toBeGreaterThan(4);
    // Chunks read from the socket are views of one buffer: the most common backing store is seen many times.
    const counts = new Map<ArrayBufferLike, number>();
    for (const buffer of sink.originals) counts.set(buffer, (counts.get(buffer) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBeGreaterThanOrEqual(3);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('reads a head written byte by byte, in separate packets', async () => {
    const body = randomBytes(100_000);
    const text = head(200, { 'Content-Length': body.length, 'X-Split': 'yes' });
    const srv = await serve(async (c) => {
      await c.request;
      for (const byte of Buffer.from(text, 'latin1')) {
        c.socket.write(Buffer.of(byte));
        await sleep(1);
      }
      await sleep(5);
      c.socket.end(body);
    });
    const response = plain(await get(srv.url()));
    expect(response.headers['x-split']).toBe('yes');
    expect(response.length).toBe(body.length);
    expect((await readBody(response)).equals(body)).toBe(true);
  });

  it('takes body bytes that arrive in the same write as the head', async () => {
    const body = randomBytes(300_000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(Buffer.concat([Buffer.from(head(200, { 'Content-Length': body.length })), body.subarray(0, 1234)]));
      await sleep(20);
      c.socket.end(body.subarray(1234));
    });
    const response = plain(await get(srv.url()));
    expect((await readBody(response)).equals(body)).toBe(true);
  });

  it('takes a whole small body that arrives in the same write as the head', async () => {
    const body = randomBytes(5000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(Buffer.concat([Buffer.from(head(200, { 'Content-Length': body.length })), body]));
    });
    const response = plain(await get(srv.url()));
    expect((await readBody(response)).equals(body)).toBe(true);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('accepts a 206 and an HTTP/1.0 status line', async () => {
    const body = randomBytes(1000);
    const srv = await serve(async (c) => {
      await c.request;
      const status = c === srv.conns[0] ? 'HTTP/1.1 206 Partial Content' : 'HTTP/1.0 200';
      c.socket.end(Buffer.concat([Buffer.from(`${status}\r\nContent-Range: bytes 0-999/5000\r\nContent-Length: 1000\r\n\r\n`), body]));
    });
    const partial = plain(await get(srv.url(), { Range: 'bytes=0-999' }));
    expect(partial.status).toBe(206);
    expect(partial.headers['content-range']).toBe('bytes 0-999/5000');
    const first = collector();
    await partial.pipeTo(first.sink);
    expect(first.bytes().equals(body)).toBe(true);

    const old = plain(await get(srv.url()));
    expect(old.status).toBe(200);
    const second = collector();
    await old.pipeTo(second.sink);
    expect(second.bytes().equals(body)).toBe(true);
  });

  it('does not pass bytes beyond Content-Length to the sink', async () => {
    const body = randomBytes(2000);
    const extra = Buffer.from('EXTRA-BYTES-AFTER-THE-BODY');
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': body.length }));
      await sleep(10);
      c.socket.write(Buffer.concat([body, extra]));
    });
    const response = plain(await get(srv.url()));
    expect((await readBody(response)).equals(body)).toBe(true);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('does not pass bytes beyond Content-Length when they come with the head', async () => {
    const body = Buffer.from('exactly this');
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(`${head(200, { 'Content-Length': body.length })}${body}AND MORE`);
    });
    const response = plain(await get(srv.url()));
    expect((await readBody(response)).toString()).toBe('exactly this');
  });

  it('resolves a zero-length body without calling the sink', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(`${head(200, { 'Content-Length': 0 })}garbage`);
    });
    const response = plain(await get(srv.url()));
    expect(response.length).toBe(0);
    const sink = collector();
    await response.pipeTo(sink.sink);
    expect(sink.chunks).toHaveLength(0);
    expect(sink.bytes().length).toBe(0);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });
});

describe('directGet: the request', () => {
  it('sends GET with the path and query, host, connection: close and the given headers, once each', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 0 }));
    });
    const url = srv.url('/files/a%20b.mp4?sig=abc%2Fdef&x=1');
    const response = plain(
      await get(url, { Range: 'bytes=10-', 'X-Trace': 'trace-1', Host: 'evil.example', connection: 'keep-alive', 'User-Agent': 'sdk/1' }),
    );
    await response.pipeTo(() => undefined);

    const request = await srv.conns[0]!.request;
    const [line, ...rest] = request.split('\r\n');
    expect(line).toBe('GET /files/a%20b.mp4?sig=abc%2Fdef&x=1 HTTP/1.1');
    const fields = rest.map((l) => {
      const colon = l.indexOf(':');
      return [l.slice(0, colon).toLowerCase(), l.slice(colon + 1).trim()] as const;
    });
    const values = (name: string) => fields.filter(([n]) => n === name).map(([, v]) => v);
    expect(values('host')).toEqual([`127.0.0.1:${srv.port}`]);
    expect(values('connection')).toEqual(['close']);
    expect(values('range')).toEqual(['bytes=10-']);
    expect(values('x-trace')).toEqual(['trace-1']);
    expect(values('user-agent')).toEqual(['sdk/1']);
    expect(fields).toHaveLength(5);
  });

  it('sends "/" for a URL without a path', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 0 }));
    });
    const url = new URL(`http://127.0.0.1:${srv.port}`);
    plain(await get(url));
    expect((await srv.conns[0]!.request).split('\r\n')[0]).toBe('GET / HTTP/1.1');
  });

  it.each([
    ['a CR in a value', { 'X-A': 'one\rtwo' }],
    ['an LF in a value', { 'X-A': 'one\ntwo' }],
    ['a CRLF injection in a value', { 'X-A': 'one\r\nX-Injected: yes' }],
    ['a NUL in a value', { 'X-A': 'one\0two' }],
    ['a space in a name', { 'X A': 'one' }],
  ])('declines %s without connecting', async (_name, headers) => {
    const srv = await serve(() => {});
    const result = await get(srv.url(), headers);
    expect(result).toEqual({ plain: false, status: undefined });
    await sleep(50);
    expect(srv.conns).toHaveLength(0);
  });
});

describe('directGet: declines', () => {
  const cases: Array<[string, string, number | undefined]> = [
    ['a chunked body', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', 200],
    ['Transfer-Encoding with a Content-Length', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n', 200],
    ['a redirect', 'HTTP/1.1 302 Found\r\nLocation: http://elsewhere.example/x\r\nContent-Length: 0\r\n\r\n', 302],
    ['a 404', 'HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found', 404],
    ['a 204', 'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n', 204],
    ['a missing Content-Length', 'HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\nbody', 200],
    ['a non-numeric Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n', 200],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 200],
    ['a Content-Length in exponent form', 'HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n', 200],
    ['a Content-Length beyond 2^53', 'HTTP/1.1 200 OK\r\nContent-Length: 9007199254740993\r\n\r\n', 200],
    ['two different Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 200],
    ['a list Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!', 200],
    ['an obs-fold header line', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Folded: one\r\n two\r\n\r\nhello', undefined],
    ['a space before a colon', 'HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello', undefined],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nnonsense\r\n\r\nhello', undefined],
    ['an HTTP/2 status line', 'HTTP/2 200\r\nContent-Length: 5\r\n\r\nhello', undefined],
    ['a non-HTTP status line', 'ICY 200 OK\r\nContent-Length: 5\r\n\r\nhello', undefined],
    ['a two-digit status', 'HTTP/1.1 20 OK\r\nContent-Length: 5\r\n\r\nhello', undefined],
  ];

  it.each(cases)('declines %s and closes the connection', async (_name, response, status) => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(response); // and keep the connection open: only the client may close it
    });
    const result = await get(srv.url());
    expect(result).toEqual({ plain: false, status });
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('declines a head larger than 64 KiB without waiting for its end', async () => {
    const line = `X-Pad: ${'a'.repeat(1000)}\r\n`;
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 5\r\n${line.repeat(70)}`);
      // The end of the head would only come much later.
      await sleep(2000);
      c.socket.write('\r\nhello');
    });
    const started = Date.now();
    const result = await get(srv.url());
    expect(result).toEqual({ plain: false, status: undefined });
    expect(Date.now() - started).toBeLessThan(1000);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  // A regression test: the limit was once checked only while the end of the head had not been found,
  // so a 66 KiB head whose last read held the blank line was accepted as plain.
  it('declines a head larger than 64 KiB whose end arrives in the read that crosses the limit', async () => {
    const line = `X-Pad: ${'a'.repeat(998)}\r\n`; // 1008 bytes
    const first = `HTTP/1.1 200 OK\r\nContent-Length: 5\r\n${line.repeat(64)}`; // 64,549 bytes < 65,536
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(first);
      await sleep(30);
      c.socket.write(`${line.repeat(2)}\r\nhello`); // the head is now 66,567 bytes
    });
    expect(first.length).toBeLessThan(64 << 10);
    const result = await get(srv.url());
    if (result.plain) responses.push(result);
    expect({ plain: result.plain, status: result.status }).toEqual({ plain: false, status: undefined });
  });

  it('rejects when the connection closes before the head is complete', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.end('HTTP/1.1 200 OK\r\nContent-Len');
    });
    const error = await rejection(get(srv.url()));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as Error).message).toMatch(/before the response head/);
  });
});

describe('directGet: a sink that returns a promise', () => {
  it('pauses reading: a slow async sink gets every byte in order, one call at a time', async () => {
    const body = randomBytes(2 << 20);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': body.length }));
      c.socket.end(body);
    });
    const response = plain(await get(srv.url()));
    const chunks: Buffer[] = [];
    let calls = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let waits = 0;
    await response.pipeTo((chunk) => {
      calls += 1;
      chunks.push(Buffer.from(chunk));
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (calls % 3 !== 0) {
        inFlight -= 1;
        return undefined;
      }
      waits += 1;
      return sleep(5).then(() => {
        inFlight -= 1;
      });
    });
    expect(waits).toBeGreaterThan(0);
    expect(maxInFlight).toBe(1);
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
  });

  it('does not count a sink slower than the timeout against the idle timer', async () => {
    const body = randomBytes(600_000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': body.length }));
      c.socket.end(body);
    });
    const response = plain(await get(srv.url(), {}, { timeout: 100 }));
    const sink = collector();
    let slow = 0;
    const started = Date.now();
    await response.pipeTo((chunk) => {
      sink.sink(chunk);
      if (chunk.length === 0 || slow >= 2) return undefined;
      slow += 1;
      return sleep(250);
    });
    expect(slow).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
    expect(sink.bytes().equals(body)).toBe(true);
  });

  it('does not count the time before pipeTo against the idle timer', async () => {
    const body = randomBytes(10_000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': body.length }));
      await sleep(10);
      c.socket.write(body);
    });
    const response = plain(await get(srv.url(), {}, { timeout: 100 }));
    await sleep(250);
    expect((await readBody(response)).equals(body)).toBe(true);
  });
});

describe('directGet: failures', () => {
  it('rejects pipeTo with APIConnectionError naming the byte counts when the body stops short', async () => {
    const body = randomBytes(400);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 1000 }));
      await sleep(10);
      c.socket.end(body);
    });
    const response = plain(await get(srv.url()));
    const sink = collector();
    const error = await rejection(response.pipeTo(sink.sink));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as Error).message).toMatch(/\b400 of 1000\b/);
    expect(sink.bytes().equals(body)).toBe(true);
  });

  it('rejects pipeTo with APIConnectionTimeoutError when the body stalls past the timeout', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 1000 }));
      c.socket.write(randomBytes(100)); // then nothing
    });
    const response = plain(await get(srv.url(), {}, { timeout: 150 }));
    const sink = collector();
    const started = Date.now();
    const error = await rejection(response.pipeTo(sink.sink));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(130);
    expect(elapsed).toBeLessThan(800);
    expect(sink.bytes().length).toBe(100);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('rejects directGet with APIConnectionTimeoutError when the head never comes', async () => {
    const srv = await serve(() => {});
    const started = Date.now();
    const error = await rejection(get(srv.url(), {}, { timeout: 150 }));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(130);
    expect(elapsed).toBeLessThan(800);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('rejects with APIConnectionError caused by ECONNREFUSED when nothing listens', async () => {
    const port = await deadPort();
    const error = await rejection(get(new URL(`http://127.0.0.1:${port}/x`)));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as Error & { cause: { code?: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it.each([
    [
      'throws',
      (error: Error) => () => {
        throw error;
      },
    ],
    ['rejects with', (error: Error) => () => Promise.reject(error)],
  ])('rejects pipeTo with the very error a sink %s, after one call, and closes the connection', async (_, failing) => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 500_000 }));
      await sleep(10);
      c.socket.write(randomBytes(500_000));
    });
    const response = plain(await get(srv.url()));
    const thrown = new Error('disk full');
    const sink = failing(thrown);
    let calls = 0;
    const error = await rejection(
      response.pipeTo(() => {
        calls += 1;
        return sink();
      }),
    );
    expect(error).toBe(thrown);
    expect(calls).toBe(1);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });
});

describe('directGet: abort', () => {
  it('rejects at once with APIUserAbortError when the signal was already aborted, without connecting', async () => {
    const srv = await serve(() => {});
    const controller = new AbortController();
    const reason = new Error('user gave up');
    controller.abort(reason);
    const error = await rejection(get(srv.url(), {}, { signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toBe(reason);
    await sleep(50);
    expect(srv.conns).toHaveLength(0);
  });

  it('rejects directGet with APIUserAbortError when aborted while waiting for the head', async () => {
    const srv = await serve(() => {});
    const controller = new AbortController();
    const pending = get(srv.url(), {}, { signal: controller.signal });
    await sleep(30);
    expect(srv.conns).toHaveLength(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(APIUserAbortError);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('rejects pipeTo with APIUserAbortError when aborted mid-body, and closes the connection', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 5000 }));
      await sleep(5);
      c.socket.write(randomBytes(1000)); // then stall
    });
    const controller = new AbortController();
    const reason = new Error('stop');
    const response = plain(await get(srv.url(), {}, { signal: controller.signal, timeout: 5000 }));
    const sink = collector();
    const body = response.pipeTo((chunk) => {
      sink.sink(chunk);
      if (sink.bytes().length === 1000) setTimeout(() => controller.abort(reason), 20);
      return undefined;
    });
    const error = await within(rejection(body), 1000, 'pipeTo settles');
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toBe(reason);
    expect(sink.bytes().length).toBe(1000);
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
  });

  it('rejects pipeTo with APIUserAbortError when aborted between the head and pipeTo', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 10 }));
    });
    const controller = new AbortController();
    const response = plain(await get(srv.url(), {}, { signal: controller.signal }));
    controller.abort();
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
    const sink = collector();
    await expect(response.pipeTo(sink.sink)).rejects.toBeInstanceOf(APIUserAbortError);
    expect(sink.chunks).toHaveLength(0);
  });
});

describe('directGet: close and reuse', () => {
  it('close() without reading closes the connection; pipeTo afterwards rejects', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 100_000 }));
      c.socket.write(randomBytes(50_000)); // and keep the connection open
    });
    const response = plain(await get(srv.url()));
    expect(srv.conns[0]!.isClosed()).toBe(false);
    response.close();
    await within(srv.conns[0]!.closed, 1000, 'server sees the close');
    const sink = collector();
    await expect(response.pipeTo(sink.sink)).rejects.toThrow();
    expect(sink.chunks).toHaveLength(0);
  });

  it('rejects a second pipeTo, during the first and after it', async () => {
    const body = randomBytes(50_000);
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': body.length }));
      await sleep(30);
      c.socket.end(body);
    });
    const response = plain(await get(srv.url()));
    const first = collector();
    const second = collector();
    const reading = response.pipeTo(first.sink);
    await expect(response.pipeTo(second.sink)).rejects.toThrow();
    await reading;
    await expect(response.pipeTo(second.sink)).rejects.toThrow();
    expect(first.bytes().equals(body)).toBe(true);
    expect(second.chunks).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('directGet: IPv6', () => {
  it('connects to a bracketed IPv6 literal and sends it as the host', async (context) => {
    const server = createHttpServer((req, res) => res.end(`host ${req.headers.host}`));
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return context.skip('no IPv6 loopback here');
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const response = plain(await get(new URL(`http://[::1]:${port}/x`)));
    expect((await readBody(response)).toString()).toBe(`host [::1]:${port}`);
  });
});

describe.skipIf(!hasOpenssl)('directGet: TLS', () => {
  let dir = '';
  let key = '';
  let cert = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'direct-get-tls-'));
    const keyPath = join(dir, 'k');
    const certPath = join(dir, 'c');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyPath,
        '-out',
        certPath,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(keyPath, 'utf8');
    cert = readFileSync(certPath, 'utf8');
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tlsServer = (body: Buffer) =>
    serve(
      async (c) => {
        await c.request;
        c.socket.write(head(200, { 'Content-Length': body.length }));
        c.socket.end(body);
      },
      (listener) => createTlsServer({ key, cert }, listener),
    );

  it('reads the body intact with the private CA, through a sink that pauses', async () => {
    const body = randomBytes(3 << 20);
    const srv = await tlsServer(body);
    const response = plain(await get(srv.url('/secure.mp4', 'https'), {}, { tls: { ca: cert } }));
    expect(response.length).toBe(body.length);
    const chunks: Buffer[] = [];
    await response.pipeTo((chunk) => {
      chunks.push(Buffer.from(chunk));
      return chunks.length % 4 === 0 ? sleep(2) : undefined;
    });
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
    expect((await srv.conns[0]!.request).split('\r\n')[0]).toBe('GET /secure.mp4 HTTP/1.1');
  });

  // Over TLS the close can be seen while reading is paused (over TCP it waits for the next read).
  it('keeps a body that arrived with the head when the host closes before pipeTo', async () => {
    const srv = await tlsServer(Buffer.from('hello'));
    const response = plain(await get(srv.url('/secure.mp4', 'https'), {}, { tls: { ca: cert } }));
    await sleep(50); // the server has ended the connection by now
    const { sink, bytes } = collector();
    await response.pipeTo(sink);
    expect(bytes().toString()).toBe('hello');
  });

  it('rejects with APIConnectionError caused by the certificate error without the CA', async () => {
    const srv = await tlsServer(randomBytes(10));
    const error = await rejection(get(srv.url('/secure.mp4', 'https')));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    const cause = (error as Error & { cause: { code?: string } }).cause;
    expect(cause.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('parseHead', () => {
  it('lowercases names and trims values', () => {
    expect(parseHead('HTTP/1.1 200 OK\r\nContent-Type:   video/mp4  \r\nX-Empty:\r\nETag:"abc"')).toEqual({
      status: 200,
      headers: { 'content-type': 'video/mp4', 'x-empty': '', etag: '"abc"' },
    });
  });

  it('makes repeated headers arrays, in order, whatever their case', () => {
    expect(parseHead('HTTP/1.1 206 Partial\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nSET-COOKIE: c=3\r\nX-One: 1')).toEqual({
      status: 206,
      headers: { 'set-cookie': ['a=1', 'b=2', 'c=3'], 'x-one': '1' },
    });
  });

  it('keeps a colon inside a value', () => {
    expect(parseHead('HTTP/1.1 302 Found\r\nLocation: http://host:8080/a')?.headers['location']).toBe('http://host:8080/a');
  });

  it('accepts a status line without a reason phrase', () => {
    expect(parseHead('HTTP/1.0 404')).toEqual({ status: 404, headers: {} });
  });

  it.each([
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 5'],
    ['a line without a colon', 'HTTP/1.1 200 OK\r\nbroken'],
    ['an empty name', 'HTTP/1.1 200 OK\r\n: value'],
    ['an obs-fold line', 'HTTP/1.1 200 OK\r\nX-A: one\r\n two'],
    ['an obs-fold line holding a colon', 'HTTP/1.1 200 OK\r\nX-A: one\r\n\tx-b: two'],
    ['HTTP/2', 'HTTP/2 200\r\nContent-Length: 5'],
    ['HTTP/1.2', 'HTTP/1.2 200 OK'],
    ['a four-digit status', 'HTTP/1.1 2000 OK'],
    ['a lowercase protocol', 'http/1.1 200 OK'],
    ['an empty head', ''],
  ])('rejects %s', (_name, text) => {
    expect(parseHead(text)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------

describe('directGet: the secret stays out of errors', () => {
  function expectClean(error: unknown, secret = SECRET) {
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).not.toContain(secret);
    expect((error as Error).message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
  }
  const withSecret = { 'X-Api-Key': SECRET, Authorization: `Bearer ${SECRET}` };

  it('on a refused connection', async () => {
    const port = await deadPort();
    const error = await rejection(get(new URL(`http://127.0.0.1:${port}/f?token=${SECRET}`), withSecret));
    expect(error).toBeInstanceOf(APIConnectionError);
    expectClean(error);
  });

  it('on a head timeout and a body timeout', async () => {
    const silent = await serve(() => {});
    const headError = await rejection(get(silent.url(`/f?token=${SECRET}`), withSecret, { timeout: 100 }));
    expect(headError).toBeInstanceOf(APIConnectionTimeoutError);
    expectClean(headError);

    const stalling = await serve(async (c) => {
      await c.request;
      c.socket.write(head(200, { 'Content-Length': 100 }));
    });
    const response = plain(await get(stalling.url(`/f?token=${SECRET}`), withSecret, { timeout: 100 }));
    const bodyError = await rejection(response.pipeTo(() => undefined));
    expect(bodyError).toBeInstanceOf(APIConnectionTimeoutError);
    expectClean(bodyError);
  });

  it('on a short body', async () => {
    const srv = await serve(async (c) => {
      await c.request;
      c.socket.end(`${head(200, { 'Content-Length': 100, 'X-Echo': SECRET })}short`);
    });
    const response = plain(await get(srv.url(`/f?token=${SECRET}`), withSecret));
    const error = await rejection(response.pipeTo(() => undefined));
    expect(error).toBeInstanceOf(APIConnectionError);
    expectClean(error);
  });

  it('even when the socket error itself quotes it', async () => {
    // The system error for a refused connection names the address: make that the secret.
    const port = await deadPort();
    const secret = `127.0.0.1:${port}`;
    const error = await rejection(directGet(new URL(`http://${secret}/f`), {}, { timeout: 1000, secret }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(String((error as Error).cause)).toContain(secret); // the raw error did hold it
    expectClean(error, secret);
  });
});
