/**
 * The exchange (src/internal/send.ts) over real loopback sockets to a node:http server each test starts: its
 * deadlines, its bounded reads, `abortsUntilSent`, and how its failures are classed.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../../src/index.js';
import { unsent } from '../../src/internal/retry.js';
import { type Attempt, exchange, MAX_JSON_BYTES, readErrorText, send } from '../../src/internal/send.js';
import { useCleanup } from '../helpers/fixture.js';
import { type Handler, rawServer } from '../helpers/raw-server.js';

const KEY = 'sk-send-secret-7';
const closers = useCleanup();

/** A server running `handler`, an agent of its own, and the attempt of a GET to it. */
async function serve(handler: Handler, connections?: number) {
  const server = await rawServer(handler);
  const agent = new Agent(connections ? { connections } : {});
  closers.push(server.close, () => agent.destroy());
  const attempt = (extra: Partial<Attempt> = {}): Attempt => ({
    origin: server.url,
    path: '/thing',
    method: 'GET',
    headers: { 'x-api-key': KEY },
    timeout: 10_000,
    ...extra,
  });
  return { server, agent, attempt };
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
    const { agent, attempt } = await serve((_req, res) => drip(res));
    const error = await exchange(agent, attempt({ timeout: 200 }), KEY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('lets a streamed body drip past the timeout, and ends it at an idle gap longer than the timeout', async () => {
    const { agent, attempt } = await serve((req, res) => {
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
    const sent = await send(agent, attempt({ path: '/drip', timeout: 150 }), KEY);
    expect(String(Buffer.concat(await sent.body.toArray()))).toBe('x'.repeat(20));
    sent.done();
    const stalled = await send(agent, attempt({ path: '/stall', timeout: 150 }), KEY);
    const error = await stalled.body.toArray().catch((e: unknown) => stalled.fail(e));
    stalled.done();
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('bounds the wait for a streamed answer’s head', async () => {
    const { agent, attempt } = await serve(() => {});
    await expect(send(agent, attempt({ timeout: 150 }), KEY)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('answers an abort at once, also while the request waits for a connection', async () => {
    const { server, agent, attempt } = await serve(() => {}, 1);
    const first = exchange(agent, attempt({ timeout: 60_000 }), KEY).catch((e: unknown) => e);
    await expect.poll(() => server.requests.length).toBe(1);
    const controller = new AbortController();
    const queued = exchange(agent, attempt({ timeout: 60_000, signal: controller.signal }), KEY);
    controller.abort(new Error('stop'));
    await expect(queued).rejects.toBeInstanceOf(APIUserAbortError);
    await agent.destroy();
    expect(await first).toBeInstanceOf(APIConnectionError);
  });
});

describe('bounded reads', () => {
  it('reads the start of an endless answer, drops the connection, and says it was cut', async () => {
    let closed: Promise<void> | undefined;
    const { agent, attempt } = await serve((req, res) => {
      closed = endless(res, req.url === '/error' ? 503 : 200);
    });
    const answer = await exchange(agent, attempt(), KEY);
    expect(answer).toMatchObject({ status: 200, truncated: true });
    expect(answer.text.length).toBe(MAX_JSON_BYTES);
    await closed;
    const failed = await exchange(agent, attempt({ path: '/error' }), KEY);
    expect(failed).toMatchObject({ status: 503, truncated: true });
    expect(failed.text.length).toBe(64 << 10);
    await closed;
  });

  it('refuses an answer announced longer than the limit without reading it', async () => {
    const { agent, attempt } = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(MAX_JSON_BYTES + 1) });
      res.write('{"id":');
    });
    await expect(exchange(agent, attempt(), KEY)).resolves.toMatchObject({ text: '', truncated: true });
  });

  it('reads a small error body whole, and only the start of a long one', async () => {
    const { agent, attempt } = await serve((req, res) => {
      if (req.url === '/long') return void endless(res, 500);
      res.writeHead(404).end('{"error":"none here"}');
    });
    const small = await send(agent, attempt(), KEY);
    expect(await readErrorText(small)).toBe('{"error":"none here"}');
    const long = await send(agent, attempt({ path: '/long' }), KEY);
    expect((await readErrorText(long)).length).toBe(64 << 10);
  });
});

describe('abortsUntilSent', () => {
  /** A POST of 32 MiB (more than loopback buffers hold) whose signal aborts once the server has read `readFirst` bytes. */
  async function upload(abortsUntilSent: boolean, readFirst: number) {
    const controller = new AbortController();
    let received = 0;
    const { agent, attempt } = await serve((req, res) => {
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
    const result = await exchange(agent, attempt({ method: 'POST', body, headers, signal: controller.signal, abortsUntilSent }), KEY).catch(
      (e: unknown) => e,
    );
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
    const { server, agent, attempt } = await serve(() => {});
    const gone = await rawServer(() => {});
    await gone.close();
    const error = await exchange(agent, attempt({ origin: gone.url }), KEY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(unsent.has(error as Error)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    await expect(exchange(agent, attempt({ signal: controller.signal }), KEY)).rejects.toBeInstanceOf(APIUserAbortError);
    expect(server.requests).toHaveLength(0);
  });

  it('scrubs the key from a failure’s message', async () => {
    const failure = new Error(`refused header x-api-key: ${KEY}`);
    const dispatcher = {
      dispatch: (_options: unknown, handler: { onResponseError(controller: unknown, error: Error): void }) =>
        handler.onResponseError(undefined, failure),
    } as never;
    const error = (await exchange(
      dispatcher,
      { origin: 'http://127.0.0.1:1', path: '/', method: 'GET', headers: {}, timeout: 1000 },
      KEY,
    ).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(KEY);
  });
});
