import { Agent, type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { APIUserAbortError, AvatarVideo, AvatarVideoError, ConflictError, NotFoundError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer } from '../helpers/raw-server.js';
import { SENDERS } from '../helpers/senders.js';

describe.each(SENDERS)('over $name', ({ via }) => {
  const KEY = 'sk-redirect-secret-999';
  const MP4 = Buffer.from('....ftypisom fake mp4 payload for redirect tests');
  const closers = useCleanup();

  async function twoOrigins(status: number, { sameOriginHop = false } = {}) {
    const cdn = await rawServer((req, res) => {
      if (req.headers['x-api-key']) return json(res, 400, { error: { code: 'credentials_forwarded', message: 'no keys here' } });
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(MP4.length) });
      res.end(MP4);
    });
    const api = await rawServer((req, res) => {
      if (req.url === '/v1/videos/vid_1/content' && sameOriginHop) {
        res.writeHead(status, { location: '/v1/videos/vid_1/content/hop' });
        return res.end();
      }
      res.writeHead(status, { location: `${cdn.url}/files/vid_1.mp4?sig=abc` });
      res.end('redirecting');
    });
    const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off' });
    closers.push(cdn.close, api.close, () => client.close());
    return { cdn, api, client };
  }

  async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks);
  }

  describe('content redirects', () => {
    it.each([301, 302, 303, 307, 308])('follows %i to another origin without the key', async (status) => {
      const { cdn, api, client } = await twoOrigins(status);
      const content = await client.videos.content('vid_1');
      expect(await readAll(content.body)).toEqual(MP4);
      expect(content.contentLength).toBe(MP4.length);
      expect(content.contentType).toBe('video/mp4');
      expect(content.url).toBe(`${cdn.url}/files/vid_1.mp4?sig=abc`);
      expect(api.requests[0]?.headers['x-api-key']).toBe(KEY);
      expect(cdn.requests).toHaveLength(1);
      expect(cdn.requests[0]?.headers['x-api-key']).toBeUndefined();
    });

    it('keeps the key on a same-origin hop, then drops it at the CDN', async () => {
      const { cdn, api, client } = await twoOrigins(302, { sameOriginHop: true });
      await readAll((await client.videos.content('vid_1')).body);
      expect(api.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
        ['/v1/videos/vid_1/content', KEY],
        ['/v1/videos/vid_1/content/hop', KEY],
      ]);
      expect(cdn.requests[0]?.headers['x-api-key']).toBeUndefined();
    });

    it('stops after five hops', async () => {
      const api = await rawServer((req, res) => {
        res.writeHead(302, { location: `${req.url}/x` });
        res.end();
      });
      const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off' });
      closers.push(api.close, () => client.close());
      await expect(client.videos.content('vid_1')).rejects.toThrow(/Too many redirects/);
      expect(api.requests).toHaveLength(6);
    });

    it('refuses a redirect without Location and a non-http scheme', async () => {
      const api = await rawServer((req, res) => {
        res.writeHead(302, req.url?.includes('vid_2') ? { location: 'file:///etc/passwd' } : {});
        res.end();
      });
      const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off' });
      closers.push(api.close, () => client.close());
      await expect(client.videos.content('vid_1')).rejects.toThrow(/no Location/);
      await expect(client.videos.content('vid_2')).rejects.toThrow(AvatarVideoError);
    });

    it('maps error responses at the start and at the CDN', async () => {
      const api = await rawServer((req, res) =>
        req.url?.includes('busy')
          ? json(res, 409, { error: { code: 'video_not_ready', message: 'still PROCESSING' } })
          : json(res, 404, { error: { code: 'video_not_found', message: 'nope' } }),
      );
      const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off' });
      closers.push(api.close, () => client.close());
      await expect(client.videos.content('busy')).rejects.toBeInstanceOf(ConflictError);
      await expect(client.videos.content('gone')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('surfaces an abort during the body as APIUserAbortError', async () => {
      const cdn = await rawServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(Buffer.alloc(1024));
      });
      const api = await rawServer((_req, res) => {
        res.writeHead(302, { location: `${cdn.url}/f.mp4` });
        res.end();
      });
      const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off' });
      closers.push(cdn.close, api.close, () => client.close());
      const controller = new AbortController();
      const content = await client.videos.content('vid_1', { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(readAll(content.body)).rejects.toBeInstanceOf(APIUserAbortError);
    });
  });

  describe('https downgrade', () => {
    it('refuses to follow https to http', async () => {
      const api = await rawServer((_req, res) => {
        res.writeHead(302, { location: 'http://127.0.0.1:1/file.mp4' });
        res.end();
      });
      // The client talks to https://api.test; this dispatcher (or fetch) takes each of its requests to the loopback server instead.
      const dispatcher = new (class extends Agent {
        override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
          return super.dispatch({ ...options, origin: api.url }, handler);
        }
      })();
      const fetch = (input: string, init: RequestInit) => globalThis.fetch(input.replace('https://api.test', api.url), init);
      const sender = via.fetch ? { fetch } : { dispatcher };
      const client = new AvatarVideo({ ...sender, apiKey: KEY, baseURL: 'https://api.test', logLevel: 'off' });
      closers.push(
        api.close,
        () => client.close(),
        () => dispatcher.close(),
      );
      await expect(client.videos.content('vid_1')).rejects.toThrow(/https to http/);
    });
  });
});
