/**
 * The built avatar-video/web (dist/web/index.js as installed) over real loopback sockets: on a server runtime against
 * the mock, every method of its surface from bytes; in a browser (a `document` defined), no key, the proxy's address,
 * and the content address asked as JSON.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeImports } from '../../scripts/node-imports.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import type * as Web from '../../src/web/index.js';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const media = join(root, 'examples/media');
const closers = useCleanup();
const { dir: pkg } = await builtPackage();
const web = (await import(pathToFileURL(join(pkg, 'dist/web/index.js')).href)) as typeof Web;

const bytes = async (name: string) => new Uint8Array(await readFile(join(media, name)));
/** All of a web stream's bytes. */
const drain = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

async function mockAndClient(): Promise<{ mock: MockServer; client: Web.AvatarVideo }> {
  const mock = await startMockServer({ processingMs: 300 });
  closers.push(() => mock.close());
  return { mock, client: new web.AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' }) };
}

describe('the built web entry', () => {
  it('imports no node: module and no undici, in the entry or its chunks', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(join(pkg, 'dist/web'))).filter((name) => name.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const name of files) expect(nodeImports(await readFile(join(pkg, 'dist/web', name), 'utf8')), name).toEqual([]);
  });
});

describe('on a server runtime, against the mock', () => {
  it('creates from a Blob, a Uint8Array and a ReadableStream, and the jobs can be waited for, polled, listed and read', async () => {
    const { mock, client } = await mockAndClient();
    const audio = await bytes('speech.wav');
    const image = await bytes('portrait.png');
    const stream = new Blob([image as BlobPart]).stream();
    const first = await client.videos.create({ audio_reference: new Blob([audio as BlobPart]), image_reference: stream });
    expect(first.status).toBe('PROCESSING');
    const polled = await client.videos.poll(first);
    expect(polled.video.id).toBe(first.id);
    const done = await client.videos.waitForCompletion(first, { pollInterval: 50 });
    expect(done.status).toBe('COMPLETE');
    const second = await client.videos.createAndWait(
      { audio_reference: audio, image_reference: image.buffer as ArrayBuffer },
      { pollInterval: 50 },
    );
    expect(second.status).toBe('COMPLETE');
    expect(mock.creates).toBe(2);
    expect((await client.videos.retrieve(second.id)).id).toBe(second.id);
    const ids: string[] = [];
    for await (const video of client.videos.list({ limit: 1 })) ids.push(video.id);
    expect(ids.sort()).toEqual([first.id, second.id].sort());
  });

  it('gives a video as a web ReadableStream and its signed address, the key kept off the file host', async () => {
    const { mock, client } = await mockAndClient();
    const video = await client.videos.createAndWait(
      { audio_reference: await bytes('speech.wav'), image_reference: await bytes('portrait.png') },
      { pollInterval: 50 },
    );
    const address = await client.videos.contentURL(video);
    expect(new URL(address).origin).not.toBe(new URL(mock.baseURL).origin);
    const content = await client.videos.content(video);
    expect(content.body).toBeInstanceOf(ReadableStream);
    const mp4 = await drain(content.body);
    expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');
    expect(content.contentLength).toBe(mp4.byteLength);
    const toFileHost = mock.requests.filter((request) => request.origin === 'cdn');
    expect(toFileHost.length).toBeGreaterThan(0);
    expect(toFileHost.filter((request) => request.hasApiKey)).toEqual([]);
  });

  it('refuses a bad input locally with MediaValidationError and creates nothing; a path is no input here', async () => {
    const { mock, client } = await mockAndClient();
    const png = await bytes('portrait.png');
    const bad = client.videos.create({ audio_reference: await bytes('speech.wav'), image_reference: png.subarray(0, 20) });
    await expect(bad).rejects.toBeInstanceOf(web.MediaValidationError);
    const path = client.videos.create({ audio_reference: 'speech.wav' as never, image_reference: png });
    await expect(path).rejects.toThrow(/Blob\/File, a Uint8Array/);
    expect(mock.creates).toBe(0);
  });
});

describe('in a browser (a document is there)', () => {
  const page = globalThis as { document?: { baseURI: string } };
  afterEach(() => {
    delete page.document;
  });

  it('refuses an API key, saying why and what to do instead', () => {
    page.document = { baseURI: 'http://127.0.0.1:1/app/' };
    const make = () => new web.AvatarVideo({ apiKey: 'sk-live', baseURL: 'https://api.example.com' });
    expect(make).toThrow(web.InvalidArgumentError);
    expect(make).toThrow(/anyone who opens the page can read it.*avatar-video\/proxy/s);
    expect(() => make()).not.toThrow(/sk-live/);
  });

  it('talks to the proxy at an address relative to the page, with no key: uploads whole, asks for the content address as JSON', async () => {
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
    // What the page's fetch is given: a browser sends a streamed body only over HTTP/2, so the upload goes as a Blob.
    const bodies: unknown[] = [];
    const fetch = (input: string, init: RequestInit) => {
      if (init.body) bodies.push(init.body);
      return globalThis.fetch(input, init);
    };
    const client = new web.AvatarVideo({ baseURL: '/api/avatar', logLevel: 'off', fetch });
    expect(client.baseURL).toBe(`${proxy.url}/api/avatar/`);
    const created = await client.videos.create({ audio_reference: await bytes('speech.wav'), image_reference: file });
    expect(created.id).toBe('vid_1');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toBeInstanceOf(Blob);
    expect(Number(proxy.requests[0]?.headers['content-length'])).toBe(proxy.requests[0]?.bodyBytes);
    expect(await client.videos.contentURL('vid_1')).toBe(`${proxy.url}/files/out.mp4`);
    const content = await client.videos.content('vid_1');
    expect(await drain(content.body)).toEqual(file);
    expect(proxy.requests.map((request) => request.url)).toEqual([
      '/api/avatar/v1/videos',
      '/api/avatar/v1/videos/vid_1/content',
      '/api/avatar/v1/videos/vid_1/content',
      '/files/out.mp4',
    ]);
    expect(proxy.requests.filter((request) => 'x-api-key' in request.headers)).toEqual([]);
  });
});
