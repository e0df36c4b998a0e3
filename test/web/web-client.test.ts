/**
 * The web entry from its sources, as the web build resolves them (`#platform` is web/platform.ts here: this project of
 * vitest.config.ts aliases it), over real loopback sockets: on a server runtime against the mock, bytes in and a web
 * stream out; in a browser (a `document` defined), no key, the proxy's address, the content address asked as JSON.
 * test/e2e/web-entry.test.ts, workers.test.ts and browser.test.ts hold the built entry to the same.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/testing/index.js';
import * as web from '../../src/web/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const media = fileURLToPath(new URL('../../examples/media', import.meta.url));
const closers = useCleanup();
const bytes = async (name: string) => new Uint8Array(await readFile(join(media, name)));
const drain = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

async function mockAndClient() {
  const mock = await startMockServer({ processingMs: 200 });
  closers.push(() => mock.close());
  return { mock, client: new web.AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' }) };
}

describe('the web client on a server runtime', () => {
  it('creates from bytes, waits, and gives the video as a web ReadableStream and its signed address', async () => {
    const { mock, client } = await mockAndClient();
    const stream = new Blob([(await bytes('portrait.png')) as BlobPart]).stream();
    const created = await client.videos.create({ audio_reference: await bytes('speech.wav'), image_reference: stream });
    const done = await client.videos.waitForCompletion(created, { pollInterval: 50 });
    expect(done.status).toBe('COMPLETE');
    expect(new URL(await client.videos.contentURL(done)).origin).not.toBe(new URL(mock.baseURL).origin);
    const content = await client.videos.content(done);
    expect(content.body).toBeInstanceOf(ReadableStream);
    expect(new TextDecoder().decode((await drain(content.body)).subarray(4, 8))).toBe('ftyp');
    expect(mock.requests.filter((request) => request.origin === 'cdn' && request.hasApiKey)).toEqual([]);
  });

  it('has no filesystem: a path is refused before anything is sent, and the file workflows are not there', async () => {
    const { mock, client } = await mockAndClient();
    const path = client.videos.create({ audio_reference: 'speech.wav' as never, image_reference: await bytes('portrait.png') });
    await expect(path).rejects.toThrow(/there is no filesystem here/);
    expect(mock.creates).toBe(0);
    for (const name of ['download', 'generate', 'generateLong', 'generateBatch']) expect(name in client.videos).toBe(false);
  });

  it('refuses a bad input locally with MediaValidationError', async () => {
    const { mock, client } = await mockAndClient();
    const bad = client.videos.create({
      audio_reference: await bytes('speech.wav'),
      image_reference: (await bytes('portrait.png')).subarray(0, 20),
    });
    await expect(bad).rejects.toBeInstanceOf(web.MediaValidationError);
    expect(mock.creates).toBe(0);
  });

  it('needs a base URL, and a key off a page', () => {
    expect(() => new web.AvatarVideo({} as never)).toThrow(web.InvalidArgumentError);
    expect(() => new web.AvatarVideo({ baseURL: 'https://api.example.com' })).toThrow(/Missing API key/);
  });
});

describe('the web client in a browser (a document is there)', () => {
  const page = globalThis as { document?: { baseURI: string } };
  afterEach(() => {
    delete page.document;
  });

  it('refuses an API key, without quoting it', () => {
    page.document = { baseURI: 'http://127.0.0.1:1/app/' };
    const make = () => new web.AvatarVideo({ apiKey: 'sk-live', baseURL: 'https://api.example.com' });
    expect(make).toThrow(/anyone who opens the page can read it/);
    expect(make).not.toThrow(/sk-live/);
  });

  it('talks to the proxy relative to the page with no key: the upload whole, the content address as JSON', async () => {
    const file = await bytes('portrait.png');
    const proxy = await rawServer((request, response) => {
      if (request.method === 'POST' && request.url === '/api/avatar/v1/videos') {
        request.on('end', () => json(response, 201, video('vid_1'))).resume();
        return;
      }
      if (request.url === '/files/out.mp4') return response.end(file);
      if (request.url === '/api/avatar/v1/videos/vid_1/content' && request.headers.accept === 'application/json') {
        return json(response, 200, { url: `http://${request.headers.host}/files/out.mp4` });
      }
      return json(response, 404, { error: { code: 'not_found', message: 'no such route' } });
    });
    closers.push(() => proxy.close());
    page.document = { baseURI: `${proxy.url}/app/page.html` };
    const bodies: unknown[] = [];
    const fetch = (input: string, init: RequestInit) => {
      if (init.body) bodies.push(init.body);
      return globalThis.fetch(input, init);
    };
    const client = new web.AvatarVideo({ baseURL: '/api/avatar', logLevel: 'off', fetch });
    expect(client.baseURL).toBe(`${proxy.url}/api/avatar/`);
    expect((await client.videos.create({ audio_reference: await bytes('speech.wav'), image_reference: file })).id).toBe('vid_1');
    expect(bodies.map((body) => body instanceof Blob)).toEqual([true]);
    expect(await client.videos.contentURL('vid_1')).toBe(`${proxy.url}/files/out.mp4`);
    expect(await drain((await client.videos.content('vid_1')).body)).toEqual(file);
    expect(proxy.requests.filter((request) => 'x-api-key' in request.headers)).toEqual([]);
  });
  it('refuses a content address a page must not open (javascript:, data:, file:) with ResponseValidationError', async () => {
    const hostile = ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'ftp://x/y'];
    const proxy = await rawServer((request, response) => {
      const index = Number(/vid_(\d+)\/content$/.exec(request.url ?? '')?.[1]);
      return json(response, 200, { url: hostile[index] ?? 'https://files.example/out.mp4' });
    });
    closers.push(() => proxy.close());
    page.document = { baseURI: `${proxy.url}/app/page.html` };
    const client = new web.AvatarVideo({ baseURL: '/api/avatar', logLevel: 'off', maxRetries: 0 });
    for (const [index, url] of hostile.entries()) {
      const refusal = await client.videos.contentURL(`vid_${index}`).catch((error: unknown) => error);
      expect([url, refusal]).toEqual([url, expect.any(web.ResponseValidationError)]);
      // content() asks for the same address first, and never fetches it.
      await expect(client.videos.content(`vid_${index}`)).rejects.toBeInstanceOf(web.ResponseValidationError);
    }
    expect(proxy.requests.every((request) => request.url.endsWith('/content'))).toBe(true);
    expect(await client.videos.contentURL('vid_9')).toBe('https://files.example/out.mp4');
  });

  it('refuses a plain-http content address when the page reached the proxy over https (no downgrade)', async () => {
    const proxy = await rawServer((_request, response) => json(response, 200, { url: 'http://files.example/out.mp4' }));
    closers.push(() => proxy.close());
    // The page is on https; its requests reach the loopback server through the client's fetch.
    page.document = { baseURI: 'https://app.example/page.html' };
    const fetch = (input: string, init: RequestInit) => globalThis.fetch(input.replace('https://app.example', proxy.url), init);
    const client = new web.AvatarVideo({ baseURL: '/api/avatar', logLevel: 'off', maxRetries: 0, fetch });
    const refusal = await client.videos.contentURL('vid_1').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(web.ResponseValidationError);
    expect((refusal as Error).message).toMatch(/from https to http/);
    expect(proxy.requests.map((request) => request.url)).toEqual(['/api/avatar/v1/videos/vid_1/content']);
  });
});
