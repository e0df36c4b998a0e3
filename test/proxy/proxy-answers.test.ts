import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createProxyHandler } from '../../src/proxy/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { type Handler, json, rawServer, video } from '../helpers/raw-server.js';
import { PREFIX, serve } from './proxy-server.js';

const closers = useCleanup();
const KEY = 'proxy-secret-key-0123456789';

/** A recording API answering with `handler`, and the proxy in front of it. */
async function proxyFor(handler: Handler) {
  const api = await rawServer(handler);
  closers.push(api.close);
  const errors: unknown[] = [];
  const proxy = await serve(
    closers,
    createProxyHandler({ apiKey: KEY, baseURL: api.url, authorize: () => true, onError: (e) => errors.push(e) }),
  );
  return { api, proxy, errors };
}

/** Everything the browser can read of an answer: status, every header, the body. */
async function seen(response: Response): Promise<string> {
  const lines = [`${response.status}`];
  response.headers.forEach((value, name) => {
    lines.push(`${name}: ${value}`);
  });
  return `${lines.join('\n')}\n${await response.text()}`;
}

/** Writes `text` in two chunks, split in the middle of the key, with a pause between so they leave apart. */
async function writeSplit(res: import('node:http').ServerResponse, status: number, text: string, type = 'application/json') {
  const at = text.indexOf(KEY) + 7;
  res.writeHead(status, { 'content-type': type });
  res.write(text.slice(0, at));
  await sleep(30);
  res.end(text.slice(at));
}

describe('the key the API echoes', () => {
  it('is scrubbed from 2xx retrieve and list bodies, and from any body, even split across chunks', async () => {
    const echo = { ...video('vid_1'), note: `made with ${KEY}` };
    const { proxy } = await proxyFor(async (req, res) => {
      if (req.url === '/v1/videos/vid_1') return writeSplit(res, 200, JSON.stringify(echo));
      if (req.url === '/v1/videos?limit=1') return writeSplit(res, 200, JSON.stringify([echo]));
      if (req.url === '/v1/videos/vid_2') return writeSplit(res, 404, `no video, key ${KEY}`, 'text/plain');
      if (req.url === '/v1/videos/vid_3/content') return writeSplit(res, 200, `mp4 bytes ${KEY} more bytes`, 'video/mp4');
      return json(res, 500, {});
    });
    const retrieved = await fetch(`${proxy}/v1/videos/vid_1`);
    expect(retrieved.status).toBe(200);
    expect(await retrieved.json()).toEqual({ ...echo, note: 'made with [redacted]' });
    const listed = await fetch(`${proxy}/v1/videos?limit=1`);
    expect(await listed.json()).toEqual([{ ...echo, note: 'made with [redacted]' }]);
    const missing = await fetch(`${proxy}/v1/videos/vid_2`);
    expect([missing.status, await missing.text()]).toEqual([404, 'no video, key [redacted]']);
    const file = await fetch(`${proxy}/v1/videos/vid_3/content`);
    expect(await file.text()).toBe('mp4 bytes [redacted] more bytes');
  });

  it("is never in the content route's file address: the redirect and the {url} answer are refused (502)", async () => {
    const { proxy } = await proxyFor((_req, res) => {
      res.writeHead(302, { location: `https://files.example/out.mp4?sig=${KEY}` }).end();
    });
    for (const accept of ['application/json', 'video/mp4']) {
      const answer = await fetch(`${proxy}/v1/videos/vid_1/content`, { headers: { accept }, redirect: 'manual' });
      const text = await seen(answer);
      expect(text).not.toContain(KEY);
      expect(answer.status).toBe(502);
    }
  });

  it("is never in a retrieve's redirect: a Location holding it is refused (502)", async () => {
    const { proxy } = await proxyFor((_req, res) => {
      res.writeHead(302, { location: `https://elsewhere.example/v1/videos/vid_1?key=${KEY}` }).end();
    });
    const answer = await fetch(`${proxy}/v1/videos/vid_1`, { redirect: 'manual' });
    expect(await seen(answer)).not.toContain(KEY);
    expect(answer.status).toBe(502);
  });
});

describe('addresses a page could open', () => {
  const hostile = ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd'];

  it('a 200 {"url"} content answer is held to the redirect rule: only http(s) passes', async () => {
    const { proxy } = await proxyFor((req, res) => {
      const index = Number(req.url?.split('/')[3]?.slice(4));
      json(res, 200, { url: hostile[index] ?? 'https://files.example/out.mp4?sig=1' });
    });
    for (const [index, url] of hostile.entries()) {
      const answer = await fetch(`${proxy}/v1/videos/vid_${index}/content`, { headers: { accept: 'application/json' } });
      const text = await seen(answer);
      expect([url, answer.status]).toEqual([url, 502]);
      expect(text).not.toContain(url.slice(0, url.indexOf(':') + 1));
    }
    const fine = await fetch(`${proxy}/v1/videos/vid_9/content`, { headers: { accept: 'application/json' } });
    expect(await fine.json()).toEqual({ url: 'https://files.example/out.mp4?sig=1' });
  });

  it('a retrieve or list the API redirects passes on only a Location the SDK would follow (http(s), no downgrade)', async () => {
    const { proxy } = await proxyFor((req, res) => {
      const target = req.url === '/v1/videos/ok' ? 'https://api.example/v1/videos/ok' : hostile[Number(req.url?.slice(-1))];
      res.writeHead(302, { location: target ?? '' }).end();
    });
    for (const [index, url] of hostile.entries()) {
      for (const path of [`/v1/videos/vid_${index}`, `/v1/videos?n=${index}`]) {
        const answer = await fetch(`${proxy}${path}`, { redirect: 'manual' });
        expect([path, answer.status, answer.headers.get('location')]).toEqual([path, 502, null]);
        expect(await answer.text()).not.toContain(url);
      }
    }
    const ok = await fetch(`${proxy}/v1/videos/ok`, { redirect: 'manual' });
    expect([ok.status, ok.headers.get('location')]).toEqual([302, 'https://api.example/v1/videos/ok']);
  });
});

describe('what reaches the API', () => {
  it('only the headers on its list: no method override, no other header a browser sends', async () => {
    const { api, proxy } = await proxyFor((req, res) => {
      req.resume().on('end', () => json(res, req.method === 'POST' ? 201 : 200, video('vid_1')));
    });
    const foreign = {
      'x-http-method-override': 'DELETE',
      'x-http-method': 'DELETE',
      'x-method-override': 'DELETE',
      'x-custom': 'browser-custom',
      origin: 'https://evil.example',
      referer: 'https://evil.example/page',
      'user-agent': 'browser-agent',
      'accept-language': 'xx-browser',
      'sec-fetch-site': 'browser-site',
      'if-none-match': '"browser-etag"',
    };
    const kept = { accept: 'application/json', 'x-request-id': 'req_from_the_browser' };
    await fetch(`${proxy}/v1/videos/vid_1`, { headers: { ...foreign, ...kept } });
    await fetch(`${proxy}/v1/videos?limit=2`, { headers: { ...foreign, ...kept } });
    const body = 'x'.repeat(100);
    const upload = { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(body.length) };
    await fetch(`${proxy}/v1/videos`, { method: 'POST', headers: { ...foreign, ...kept, ...upload }, body });
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'POST']);
    // The proxy's own fetch sets a user-agent, accept-language and sec-fetch-mode of its own: never the browser's.
    const fetchSets = ['user-agent', 'accept-language', 'sec-fetch-mode'];
    for (const request of api.requests) {
      for (const [name, value] of Object.entries(foreign)) {
        const arrived = request.headers[name];
        expect([name, fetchSets.includes(name) ? arrived !== value : arrived === undefined]).toEqual([name, true]);
      }
      expect(request.headers['x-request-id']).toBe('req_from_the_browser');
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['x-api-key']).toBe(KEY);
    }
    const post = api.requests[2]?.headers ?? {};
    expect([post['content-type'], post['content-length'], api.requests[2]?.bodyBytes]).toEqual([upload['content-type'], '100', 100]);
  });
});

describe('methods outside the routes', () => {
  /** node:http, as fetch cannot send TRACE. */
  const send = (url: string, method: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      httpRequest(url, { method })
        .on('response', (res: IncomingMessage) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject)
        .end();
    });

  it('TRACE and any other method are a 404 in the API error shape through node:http, and reach nothing', async () => {
    const { api, proxy } = await proxyFor((_req, res) => json(res, 200, video('vid_1')));
    // (TRACK never reaches a handler: Node's parser answers it 400 itself.)
    for (const method of ['TRACE', 'OPTIONS', 'PATCH', 'DELETE', 'HEAD', 'PROPFIND']) {
      for (const path of ['/v1/videos', '/v1/videos/vid_1', '/v1/videos/vid_1/content']) {
        const answer = await send(`${proxy}${path}`, method);
        expect([method, path, answer.status]).toEqual([method, path, 404]);
        if (method !== 'HEAD') expect(JSON.parse(answer.body)).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      }
    }
    expect(api.requests).toEqual([]);
  });

  it('the web handler answers the same 404 to a TRACE request a runtime hands it', async () => {
    const handler = createProxyHandler({ apiKey: KEY, baseURL: 'https://api.example', authorize: () => true });
    // A `Request` cannot be made with TRACE in Node (fetch forbids it); a server runtime may still hand one over.
    const trace = { method: 'TRACE', url: `https://app.example${PREFIX}/v1/videos/vid_1`, headers: new Headers() } as Request;
    const answer = await handler(trace);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });
});
