/**
 * The proxy's requests to the API over their lifetime, over real sockets: a browser (node:http) in front of the proxy
 * (`toNodeHandler`), an API (a raw server or the mock) behind it. A create whose body has left is seen through to its
 * answer whatever the browser does; an upload that stalls or trickles is cut before the API can take it; a browser
 * that leaves mid-answer releases the API's request, also after a garbage collection (the proxy in a child process).
 * Where the code under test could hang, a test waits a bounded while and says what it saw, rather than time out.
 */
import { once } from 'node:events';
import { type ClientRequest, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Video } from '../../src/index.js';
import { createProxyHandler, type ProxyErrorContext, type ProxyOptions, toNodeHandler } from '../../src/proxy/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';
import { startProxy } from './proxy-process.js';

const closers = useCleanup();
/** How long a test waits for what must happen before it calls it not happening (far above what it takes). */
const BOUND_MS = 10_000;

/** `promise`'s value, or `fallback` if it has not settled within BOUND_MS. */
async function within<T, F>(promise: Promise<T>, fallback: F): Promise<T | F> {
  const gaveUp = sleep(BOUND_MS, fallback, { ref: false });
  return Promise.race([promise, gaveUp]);
}

/** A proxy served by toNodeHandler on a loopback port, every call allowed, its onCreated and onError recorded. */
async function serveProxy(baseURL: string, extra: Partial<ProxyOptions> = {}) {
  const createdVideos: Video[] = [];
  const errors: Array<[unknown, ProxyErrorContext]> = [];
  const requests: Request[] = [];
  let told: () => void = () => {};
  const toldApp = new Promise<void>((resolve) => {
    told = resolve;
  });
  const handler = createProxyHandler({
    apiKey: 'proxy-secret-key',
    baseURL,
    authorize: (request) => requests.push(request) > 0,
    onCreated: (_request, created) => {
      createdVideos.push(created);
      told();
    },
    onError: (error, context) => {
      errors.push([error, context]);
      told();
    },
    ...extra,
  });
  const server = createServer(toNodeHandler(handler));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, createdVideos, errors, requests, toldApp };
}

/** A form's bytes, as a browser would send them. */
async function formBytes(): Promise<{ body: Uint8Array; type: string }> {
  const form = new FormData();
  form.append('audio_reference', new Blob([wav(2) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'voice.wav');
  form.append('image_reference', new Blob([readMockFixture('portrait.png')], { type: 'image/png' }), 'face.png');
  const encoded = new Response(form);
  return { body: new Uint8Array(await encoded.arrayBuffer()), type: encoded.headers.get('content-type') ?? '' };
}

/** A browser's create, its body written by the test: the request, and its answer once it comes. */
function browserCreate(url: string, headers: Record<string, string | number>) {
  const request: ClientRequest = httpRequest(`${url}/v1/videos`, { method: 'POST', headers });
  request.on('error', () => {}); // the test destroys it
  const answered = once(request, 'response').then(async ([response]) => {
    let text = '';
    for await (const chunk of response as IncomingMessage) text += chunk;
    return { status: (response as IncomingMessage).statusCode, body: JSON.parse(text) as unknown };
  });
  answered.catch(() => {});
  return { request, answered };
}

describe('a create whose body has left', () => {
  it('runs onCreated when the browser leaves after its upload, before the API answered', async () => {
    let bodyIn: () => void = () => {};
    const uploaded = new Promise<void>((resolve) => {
      bodyIn = resolve;
    });
    let answerNow: () => void = () => {};
    const release = new Promise<void>((resolve) => {
      answerNow = resolve;
    });
    const api = await rawServer(async (req, res) => {
      req.on('end', bodyIn);
      await release;
      json(res, 200, video('vid_left'));
    });
    closers.push(api.close);
    const proxy = await serveProxy(api.url);
    const { body, type } = await formBytes();
    const browser = browserCreate(proxy.url, { 'content-type': type, 'content-length': body.byteLength });
    browser.request.end(body);
    await uploaded;
    browser.request.destroy(); // the tab closed while the API made the video
    const signal = proxy.requests[0]?.signal as AbortSignal;
    if (!signal.aborted) await once(signal, 'abort');
    answerNow();

    expect(await within(proxy.toldApp, 'the app was told nothing')).toBeUndefined();
    expect(proxy.createdVideos.map((v) => v.id)).toEqual(['vid_left']);
    expect(proxy.errors).toEqual([]);
  });

  it('tells onError, and the browser, when a 2xx create answer is too large to read', async () => {
    const api = await rawServer((req, res) => {
      req.on('end', () => json(res, 201, { ...video('vid_big'), padding: 'x'.repeat(2 << 20) }));
    });
    closers.push(api.close);
    const proxy = await serveProxy(api.url);
    const { body, type } = await formBytes();
    const browser = browserCreate(proxy.url, { 'content-type': type, 'content-length': body.byteLength });
    browser.request.end(body);

    const answer = await browser.answered;
    expect(answer).toEqual({ status: 502, body: { error: { code: 'bad_gateway', message: expect.stringMatching(/video .*made/) } } });
    expect(proxy.errors).toEqual([[expect.any(Error), { action: 'create' }]]);
    expect(String(proxy.errors[0]?.[0])).toContain('list the videos');
    expect(String(proxy.errors[0]?.[0])).not.toContain('proxy-secret-key');
  });

  it('still stops a create when the browser leaves before its body has all left: the API gets no whole upload', async () => {
    let apiSide: (reason: string) => void = () => {};
    const apiEnded = new Promise<string>((resolve) => {
      apiSide = resolve;
    });
    let someIn: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      someIn = resolve;
    });
    const api = await rawServer((req) => {
      req.once('data', someIn);
      req.on('close', () => apiSide(req.complete ? 'the whole upload' : 'a cut upload'));
    });
    closers.push(api.close);
    const proxy = await serveProxy(api.url, { uploadIdleTimeout: 600_000 });
    const browser = browserCreate(proxy.url, { 'content-type': 'multipart/form-data; boundary=x', 'content-length': 100_000 });
    browser.request.write(new Uint8Array(1_000));
    await started;
    browser.request.destroy();

    expect(await within(apiEnded, 'still open')).toBe('a cut upload');
    expect(proxy.errors).toEqual([]);
    expect(proxy.createdVideos).toEqual([]);
  });
});

describe('upload bounds', () => {
  it('cuts an upload that sends nothing for uploadIdleTimeout with 408, before the API creates anything', async () => {
    const mock = await startMockServer({ clock: 'manual' });
    closers.push(mock.close);
    const proxy = await serveProxy(mock.baseURL, { apiKey: mock.apiKey, uploadIdleTimeout: 300 });
    const { body, type } = await formBytes();
    const browser = browserCreate(proxy.url, { 'content-type': type, 'content-length': body.byteLength });
    browser.request.write(body.subarray(0, body.byteLength / 2)); // then nothing: a stalled browser

    expect(await within(browser.answered, 'no answer')).toEqual({
      status: 408,
      body: { error: { code: 'upload_timeout', message: expect.stringContaining('300 ms') } },
    });
    expect(mock.creates).toBe(0);
    expect(proxy.errors).toEqual([]);
    browser.request.destroy();
  });

  it('cuts an upload slower than minUploadBytesPerSecond with 408, before the API creates anything', async () => {
    const mock = await startMockServer({ clock: 'manual' });
    closers.push(mock.close);
    const proxy = await serveProxy(mock.baseURL, { apiKey: mock.apiKey, minUploadBytesPerSecond: 50_000, uploadRateWindow: 300 });
    const { body, type } = await formBytes();
    const browser = browserCreate(proxy.url, { 'content-type': type, 'content-length': body.byteLength });
    let sent = 0;
    // 100 bytes every 20 ms at most (5 KB/s, or less on a busy machine), well under the minimum.
    const trickle = setInterval(() => {
      if (sent >= body.byteLength - 100) return;
      browser.request.write(body.subarray(sent, sent + 100));
      sent += 100;
    }, 20);
    closers.push(() => clearInterval(trickle));

    expect(await within(browser.answered, 'no answer')).toEqual({
      status: 408,
      body: { error: { code: 'upload_too_slow', message: expect.stringContaining('50000 bytes a second') } },
    });
    expect(sent).toBeLessThan(body.byteLength - 100);
    expect(mock.creates).toBe(0);
    browser.request.destroy();
  });

  it('checks its upload bounds when made', () => {
    const good = { apiKey: 'k', baseURL: 'https://api.example.com', authorize: () => true };
    const cases: Array<[Partial<ProxyOptions>, string]> = [
      [{ uploadIdleTimeout: 0 }, 'uploadIdleTimeout'],
      [{ uploadIdleTimeout: 1.5 }, 'uploadIdleTimeout'],
      [{ minUploadBytesPerSecond: -1 }, 'minUploadBytesPerSecond'],
      [{ uploadRateWindow: Number.NaN }, 'uploadRateWindow'],
    ];
    for (const [patch, argument] of cases) {
      expect(() => createProxyHandler({ ...good, ...patch })).toThrow(expect.objectContaining({ name: 'InvalidArgumentError', argument }));
    }
    expect(() => createProxyHandler({ ...good, minUploadBytesPerSecond: 0, uploadIdleTimeout: undefined })).not.toThrow();
  });
});

describe('a browser that leaves mid-answer', () => {
  it('releases the API request after a garbage collection, whether the API has answered yet or not', async () => {
    for (const answering of [true, false]) {
      let apiClosed: () => void = () => {};
      const closed = new Promise<string>((resolve) => {
        apiClosed = () => resolve('closed');
      });
      const api = await rawServer((_req, res) => {
        res.on('close', apiClosed);
        if (!answering) return; // a stalled API
        res.writeHead(200, { 'content-type': 'application/json' });
        // And then nothing more: a slow answer, longer than the key, as the proxy holds back a key's length of bytes
        // until the next chunk shows no key split across the two.
        res.write(`{"data": [${' '.repeat(64)}`);
      });
      closers.push(api.close);
      const proxy = await startProxy(closers, api.url, 'proxy-secret-key');
      const browser = httpRequest(`${proxy.url}/v1/videos/vid_1`);
      browser.on('error', () => {});
      browser.end();
      if (answering) {
        const [answer] = (await once(browser, 'response')) as [IncomingMessage];
        await once(answer, 'data'); // the handler has returned: the answer is being relayed
      } else {
        expect(await until(() => api.requests.length === 1)).toBe(true);
      }
      expect(await proxy.ask('gc')).toEqual({ collected: true });
      browser.destroy();

      expect([answering, await within(closed, 'held open')]).toEqual([answering, 'closed']);
    }
  });
});

/** Whether `check` came to hold within BOUND_MS, looked at every few milliseconds. */
async function until(check: () => boolean): Promise<boolean> {
  for (const end = Date.now() + BOUND_MS; !check(); await sleep(5)) if (Date.now() > end) return false;
  return true;
}
