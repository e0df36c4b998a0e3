import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionTimeoutError,
  AvatarVideo,
  InternalServerError,
  NotFoundError,
  ResponseTooLargeError,
  ResponseValidationError,
} from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const KEY = 'sk-hostile-secret-4242';
const closers = useCleanup();

async function serve(handler: Parameters<typeof rawServer>[0]) {
  const server = await rawServer(handler);
  const client = new AvatarVideo({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  closers.push(() => client.close(), server.close);
  return { server, client };
}

/** Write `chunk` over and over until the client goes away; returns the bytes written. */
function endless(res: ServerResponse, chunk: Buffer, stats: { written: number }) {
  let open = true;
  res.on('close', () => {
    open = false;
  });
  const pump = () => {
    while (open && res.write(chunk)) stats.written += chunk.length;
    if (open) res.once('drain', pump);
  };
  pump();
}

describe('bounded reads', () => {
  it('stops reading an endless 200 JSON answer and drops the connection', async () => {
    const stats = { written: 0 };
    const { client } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"vid_1","padding":"');
      endless(res, Buffer.alloc(1 << 16, 'a'), stats);
    });
    const error = await client.videos.retrieve('vid_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limit).toBe(8 << 20);
    // The server stopped because the connection went away, not because the body ended.
    expect(stats.written).toBeLessThan(64 << 20);
  });

  it('refuses a JSON answer announced larger than the limit without reading it', async () => {
    let closed = false;
    const { client } = await serve((_req, res) => {
      res.on('close', () => {
        closed = true;
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 << 20) });
      res.write('{"id":');
    });
    await expect(client.videos.retrieve('vid_1')).rejects.toBeInstanceOf(ResponseTooLargeError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });

  it('keeps the status of an endless error body, reading only its start', async () => {
    const stats = { written: 0 };
    const { client } = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      endless(res, Buffer.alloc(1 << 16, '<p>busy</p>'), stats);
    });
    const error = await client.videos.retrieve('vid_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);
    expect(String((error as InternalServerError).body).length).toBeLessThanOrEqual(2049);
    expect(stats.written).toBeLessThan(64 << 20);
  });
});

describe('the file host head has a deadline', () => {
  it('times out a response head dripped slower than `timeout`', async () => {
    let dripping: NodeJS.Timeout | undefined;
    const cdn = await rawServer((req) => {
      const lines = ['HTTP/1.1 200 OK\r\n', 'content-type: video/mp4\r\n', 'content-length: 10\r\n'];
      for (let i = 0; i < 40; i++) lines.push(`x-pad-${i}: ${i}\r\n`);
      dripping = setInterval(() => {
        const line = lines.shift();
        if (line && !req.socket.destroyed) req.socket.write(line);
        else clearInterval(dripping);
      }, 50);
    });
    closers.push(async () => clearInterval(dripping), cdn.close);
    const { client } = await serve((req, res) => {
      if (req.url === '/v1/videos/vid_1/content') return res.writeHead(302, { location: `${cdn.url}/file.mp4` }).end();
      json(res, 200, video('vid_1', { status: 'COMPLETE' }));
    });
    await expect(client.videos.content('vid_1', { timeout: 300 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    const error = await client.videos.download('vid_1', '/tmp/never-written.mp4', { timeout: 300, maxResumes: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });
});

describe('the key never comes back in an error', () => {
  it('scrubs a 2xx body that echoes it, JSON or not', async () => {
    const { client } = await serve((req, res) => {
      if (req.url === '/v1/videos/vid_1') return json(res, 200, { id: 42, echo: `key=${KEY}`, [KEY]: true });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`your key is ${KEY}`);
    });
    for (const id of ['vid_1', 'vid_2']) {
      const error = await client.videos.retrieve(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(inspect(error, { depth: 10 })).not.toContain(KEY);
      expect(JSON.stringify((error as ResponseValidationError).body)).not.toContain(KEY);
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  it('scrubs every header value of an APIError, not only credential names', async () => {
    const { client } = await serve((_req, res) => {
      res.setHeader('x-debug-echo', `request had x-api-key: ${KEY}`);
      res.setHeader('link', [`<https://x.example/?k=${KEY}>`, '<https://x.example/other>']);
      json(res, 404, { error: { code: 'not_found', message: `no video for ${KEY}` } });
    });
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.headers['x-debug-echo']).toBe('request had x-api-key: [redacted]');
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(inspect(error, { depth: 10 })).not.toContain(KEY);
  });
});
