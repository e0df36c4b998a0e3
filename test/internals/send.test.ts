/**
 * The HTTP seam's two implementations (undici, src/internal/send.ts; fetch, src/internal/fetch-send.ts) over real
 * loopback sockets to a node:http server each test starts: their deadlines, bounded reads, `abortsUntilSent`, and how
 * their failures are classed, alike.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../../src/index.js';
import { fetchClient } from '../../src/internal/fetch-send.js';
import { type Attempt, chunksOf, type HttpClient, MAX_JSON_BYTES, type ResponseBody } from '../../src/internal/http-client.js';
import { unsent } from '../../src/internal/retry.js';
import { UndiciClient } from '../../src/internal/send.js';
import { useCleanup } from '../helpers/fixture.js';
import { type Handler, rawServer } from '../helpers/raw-server.js';

const KEY = 'sk-send-secret-7';
const closers = useCleanup();

/** Each implementation of the seam, made over an undici agent (the fetch one over the global fetch). */
const IMPLEMENTATIONS = [
  { name: 'undici', make: (agent: Agent): HttpClient => new UndiciClient(agent, KEY) },
  { name: 'fetch', make: (_agent: Agent): HttpClient => fetchClient(KEY, globalThis.fetch) },
];

/** The whole of a streamed body, as text. */
async function readAll(body: ResponseBody): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksOf(body)) chunks.push(chunk);
  return String(Buffer.concat(chunks));
}

describe.each(IMPLEMENTATIONS)('the seam over $name', ({ name, make }) => {
  /** A server running `handler`, a client of its own, and the attempt of a GET to it. */
  async function serve(handler: Handler, connections?: number) {
    const server = await rawServer(handler);
    const agent = new Agent(connections ? { connections } : {});
    const client = make(agent);
    closers.push(server.close, () => agent.destroy());
    const attempt = (extra: Partial<Attempt> = {}): Attempt => ({
      origin: server.url,
      path: '/thing',
      method: 'GET',
      headers: { 'x-api-key': KEY },
      timeout: 10_000,
      ...extra,
    });
    return { server, agent, client, attempt };
  }

  /** Write a space every 20 ms until the client goes away: undici's idle timeouts never fire on it. */
  function drip(res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  }

  /** Write `chunk` for as long as the client reads; resolves once the client has gone away. */
  function endless(res: ServerResponse, status: number): Promise<void> {
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1 << 16, 'a');
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    pump();
    return new Promise((resolve) => res.on('close', resolve));
  }

  describe('deadlines', () => {
    it('ends a JSON exchange whose body drips past the timeout', async () => {
      const { client, attempt } = await serve((_req, res) => drip(res));
      const error = await client.exchange(attempt({ timeout: 200 })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    });

    it('lets a streamed body drip past the timeout, and ends it at an idle gap longer than the timeout', async () => {
      const { client, attempt } = await serve((req, res) => {
        res.writeHead(200);
        let written = 0;
        const timer = setInterval(() => {
          res.write('x');
          // /stall goes quiet after 15 bytes, /drip ends after 20.
          if (++written === 20 && req.url === '/drip') res.end();
          if (written >= 15 && req.url === '/stall') clearInterval(timer);
        }, 20);
        res.on('close', () => clearInterval(timer));
      });
      const sent = await client.send(attempt({ path: '/drip', timeout: 150 }));
      expect(await readAll(sent.body)).toBe('x'.repeat(20));
      sent.done();
      const stalled = await client.send(attempt({ path: '/stall', timeout: 150 }));
      const error = await readAll(stalled.body).catch((e: unknown) => stalled.fail(e));
      stalled.done();
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    });

    it('bounds the wait for a streamed answer’s head', async () => {
      const { client, attempt } = await serve(() => {});
      await expect(client.send(attempt({ timeout: 150 }))).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    });

    it('answers an abort at once, also while the request waits for a connection', async () => {
      const { server, agent, client, attempt } = await serve(() => {}, 1);
      const first = client.exchange(attempt({ timeout: 60_000 })).catch((e: unknown) => e);
      await expect.poll(() => server.requests.length).toBe(1);
      const controller = new AbortController();
      const queued = client.exchange(attempt({ timeout: 60_000, signal: controller.signal }));
      controller.abort(new Error('stop'));
      await expect(queued).rejects.toBeInstanceOf(APIUserAbortError);
      // The first request ends with its connection (undici's pool, or the server for fetch's).
      await (name === 'undici' ? agent.destroy() : server.close());
      expect(await first).toBeInstanceOf(APIConnectionError);
    });
  });

  describe('bounded reads', () => {
    it('reads the start of an endless answer, drops the connection, and says it was cut', async () => {
      let closed: Promise<void> | undefined;
      const { client, attempt } = await serve((req, res) => {
        closed = endless(res, req.url === '/error' ? 503 : 200);
      });
      const answer = await client.exchange(attempt());
      expect(answer).toMatchObject({ status: 200, truncated: true });
      expect(answer.text.length).toBe(MAX_JSON_BYTES);
      await closed;
      const failed = await client.exchange(attempt({ path: '/error' }));
      expect(failed).toMatchObject({ status: 503, truncated: true });
      expect(failed.text.length).toBe(64 << 10);
      await closed;
    });

    it('refuses an answer announced longer than the limit without reading it', async () => {
      const { client, attempt } = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': String(MAX_JSON_BYTES + 1) });
        res.write('{"id":');
      });
      await expect(client.exchange(attempt())).resolves.toMatchObject({ text: '', truncated: true });
    });

    it('reads a small error body whole, and only the start of a long one', async () => {
      const { client, attempt } = await serve((req, res) => {
        if (req.url === '/long') return void endless(res, 500);
        res.writeHead(404).end('{"error":"none here"}');
      });
      const small = await client.send(attempt());
      expect(await small.errorText()).toBe('{"error":"none here"}');
      const long = await client.send(attempt({ path: '/long' }));
      expect((await long.errorText()).length).toBe(64 << 10);
    });
  });

  describe('abortsUntilSent', () => {
    /** A POST of 32 MiB (more than loopback buffers hold) whose signal aborts once the server has read `readFirst` bytes. */
    async function upload(abortsUntilSent: boolean, readFirst: number) {
      const controller = new AbortController();
      let received = 0;
      const { client, attempt } = await serve((req, res) => {
        req.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= readFirst && !controller.signal.aborted) {
            controller.abort(new Error('user stopped'));
            if (received < 32 << 20) req.pause(); // the rest of the upload stalls
          }
        });
        req.on('end', () => setTimeout(() => res.writeHead(200).end('{"id":"vid_paid"}'), 50));
      });
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < 32; i++) yield Buffer.alloc(1 << 20);
        })(),
      );
      const headers = { 'content-length': String(32 << 20) };
      const result = await client
        .exchange(attempt({ method: 'POST', body, headers, signal: controller.signal, abortsUntilSent }))
        .catch((e: unknown) => e);
      return { result, received };
    }

    it('stops the upload when the signal aborts while it is sent', async () => {
      const { result, received } = await upload(true, 1 << 20);
      expect(result).toBeInstanceOf(APIUserAbortError);
      expect(received).toBeLessThan(32 << 20);
    });

    it('awaits the answer when the signal aborts once the body has gone whole', async () => {
      expect((await upload(true, 32 << 20)).result).toMatchObject({ status: 200, text: '{"id":"vid_paid"}' });
      // Without the flag, the same late abort stops the request.
      expect((await upload(false, 32 << 20)).result).toBeInstanceOf(APIUserAbortError);
    });
  });

  describe('failures', () => {
    it('marks a refused connection as unsent (a create may be retried), and sends nothing on an aborted signal', async () => {
      const { server, client, attempt } = await serve(() => {});
      const gone = await rawServer(() => {});
      await gone.close();
      const error = await client.exchange(attempt({ origin: gone.url })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(unsent.has(error as Error)).toBe(true);
      const controller = new AbortController();
      controller.abort();
      await expect(client.exchange(attempt({ signal: controller.signal }))).rejects.toBeInstanceOf(APIUserAbortError);
      expect(server.requests).toHaveLength(0);
    });

    it('scrubs the key from a failure’s message', async () => {
      const failure = new Error(`refused header x-api-key: ${KEY}`);
      const dispatcher = {
        dispatch: (_options: unknown, handler: { onResponseError(controller: unknown, error: Error): void }) =>
          handler.onResponseError(undefined, failure),
      } as never;
      const client = name === 'undici' ? new UndiciClient(dispatcher, KEY) : fetchClient(KEY, () => Promise.reject(failure));
      const error = (await client
        .exchange({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET', headers: {}, timeout: 1000 })
        .catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.message).toContain('[redacted]');
      expect(error.message).not.toContain(KEY);
    });
  });
});
