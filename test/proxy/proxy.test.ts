import { request as httpRequest } from 'node:http';
import { fetch as undiciFetch } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { AvatarVideo, InvalidArgumentError, type Video } from '../../src/index.js';
import { createProxyHandler, type ProxyCall, type ProxyOptions } from '../../src/proxy/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture, wav } from '../helpers/media.js';
import { json, rawServer } from '../helpers/raw-server.js';
import { PREFIX, serve } from './proxy-server.js';

const closers = useCleanup();

/** An app's proxy: users known by cookie, each allowed the videos it made; `list` only for `admin`. */
function appProxy(baseURL: string, apiKey: string, extra: Partial<ProxyOptions> = {}) {
  const owners = new Map<string, string>();
  const calls: Array<ProxyCall & { user: string | undefined }> = [];
  const userOf = (request: Request) => /(?:^|;\s*)user=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  const handler = createProxyHandler({
    apiKey,
    baseURL,
    authorize: (request, call) => {
      const user = userOf(request);
      calls.push({ ...call, user });
      if (user === undefined) return false;
      if (call.action === 'create') return true;
      if (call.action === 'list') return user === 'admin';
      return owners.get(call.videoId ?? '') === user;
    },
    onCreated: (request, video) => {
      owners.set(video.id, userOf(request) ?? '');
    },
    ...extra,
  });
  return { handler, owners, calls };
}

const form = (audioSeconds = 2) => {
  const body = new FormData();
  body.append('audio_reference', new Blob([wav(audioSeconds) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'voice.wav');
  body.append('image_reference', new Blob([readMockFixture('portrait.png')], { type: 'image/png' }), 'face.png');
  return body;
};

/** What a browser with the app's cookie sends, plus credentials of its own that must not reach the API. */
const browser = (user: string, extra: Record<string, string> = {}) => ({
  cookie: `user=${user}; other=1`,
  'x-api-key': 'forged-by-the-browser',
  authorization: 'Bearer forged',
  'x-forwarded-for': '203.0.113.9',
  ...extra,
});

async function create(proxy: string, user: string): Promise<Video> {
  const response = await fetch(`${proxy}/v1/videos`, { method: 'POST', headers: browser(user), body: form() });
  expect(response.status).toBe(200);
  return (await response.json()) as Video;
}

let mock: MockServer;
let app: ReturnType<typeof appProxy>;
let proxy: string;
beforeEach(async () => {
  mock = await startMockServer({ clock: 'manual', processingMs: 1000 });
  closers.push(mock.close);
  app = appProxy(mock.baseURL, mock.apiKey);
  proxy = await serve(closers, app.handler);
});

describe('routes', () => {
  it('forwards only the spec routes, under any prefix; anything else is 404 with no API request', async () => {
    const video = await create(proxy, 'alice');
    const requestsBefore = mock.requests.length;
    const refused = [
      ['GET', '/v1/videos/x/content/hop'],
      ['DELETE', `/v1/videos/${video.id}`],
      ['POST', `/v1/videos/${video.id}`],
      ['PUT', '/v1/videos'],
      ['GET', '/v2/videos'],
      ['GET', '/v1/videos/%2E'], // would climb to /v1/videos/, the list, past authorize's check for `list`
      ['GET', '/v1/videos/%2E%2E/content'],
      ['GET', '/v1/videos/x/y'],
      ['GET', '/health'],
    ];
    for (const [method, path] of refused) {
      const response = await fetch(`${proxy}${path}`, { method, headers: browser('admin') });
      expect([method, path, response.status]).toEqual([method, path, 404]);
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
    expect(mock.requests.length).toBe(requestsBefore);
    // The same handler, mounted elsewhere, answers the spec routes there.
    const other = await fetch(`${proxy.replace(PREFIX, '/elsewhere/deep')}/v1/videos/${video.id}`, { headers: browser('alice') });
    expect(other.status).toBe(200);
  });

  it('asks authorize about each call with its action and video id', async () => {
    const video = await create(proxy, 'alice');
    await fetch(`${proxy}/v1/videos/${video.id}`, { headers: browser('alice') });
    await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: browser('alice') });
    await fetch(`${proxy}/v1/videos?limit=2`, { headers: browser('alice') });
    expect(app.calls).toEqual([
      { action: 'create', videoId: undefined, user: 'alice' },
      { action: 'retrieve', videoId: video.id, user: 'alice' },
      { action: 'content', videoId: video.id, user: 'alice' },
      { action: 'list', videoId: undefined, user: 'alice' },
    ]);
  });
});

describe('credentials', () => {
  it('never lets a browser key, cookie, authorization or forwarding header reach the API, and adds its own key', async () => {
    const video = await create(proxy, 'alice');
    await fetch(`${proxy}/v1/videos/${video.id}`, { headers: browser('alice') });
    const seen = mock.requests.filter((r) => r.origin === 'api');
    expect(seen.map((r) => [r.method, r.path, r.apiKeyValid])).toEqual([
      ['POST', '/v1/videos', true],
      ['GET', `/v1/videos/${video.id}`, true],
    ]);
    for (const { headers } of seen) {
      expect(Object.keys(headers)).not.toEqual(expect.arrayContaining(['cookie']));
      for (const name of ['cookie', 'authorization', 'x-forwarded-for']) expect(headers[name]).toBeUndefined();
    }
  });

  it('sends the API no browser header off its list, whatever their case, and sets no cookie the API set', async () => {
    const api = await rawServer((_req, res) =>
      json(res, 200, { id: 'vid_1' }, { 'set-cookie': 'track=1', 'x-echo': 'proxy-secret-key', 'x-request-id': 'req_1' }),
    );
    closers.push(api.close);
    const raw = await serve(closers, createProxyHandler({ apiKey: 'proxy-secret-key', baseURL: api.url, authorize: () => true }));
    // node:http, not fetch: it lets a client send Connection and the headers it names.
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const headers = {
        'X-Api-Key': 'forged',
        Cookie: 'a=1',
        'Proxy-Authorization': 'Basic x',
        Forwarded: 'for=1.2.3.4',
        'X-Real-IP': '1.2.3.4',
        Connection: 'keep-alive, X-Hop',
        'X-Hop': '1',
        'X-Kept': 'yes',
      };
      httpRequest(`${raw}/v1/videos/vid_1`, { headers }).on('response', resolve).on('error', reject).end();
    });
    response.resume();
    expect(response.statusCode).toBe(200);
    const sent = api.requests[0]?.headers ?? {};
    expect(sent['x-api-key']).toBe('proxy-secret-key');
    for (const name of ['cookie', 'proxy-authorization', 'forwarded', 'x-real-ip', 'x-hop', 'x-kept']) expect(sent[name]).toBeUndefined();
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['x-echo']).toBeUndefined();
    expect(response.headers['x-request-id']).toBe('req_1');
  });

  it('never shows the key to the browser: not in headers or bodies, of answers or errors', async () => {
    const video = await create(proxy, 'alice');
    mock.advance(5_000);
    const answers = [
      await fetch(`${proxy}/v1/videos/${video.id}`, { headers: browser('alice') }),
      await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: browser('alice'), redirect: 'manual' }),
      await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: browser('alice', { accept: 'application/json' }) }),
      await fetch(`${proxy}/v1/videos/${video.id}`, { headers: browser('bob') }),
      await fetch(`${proxy}/v1/videos`, { headers: browser('admin') }),
    ];
    for (const answer of answers) {
      const headers: string[] = [];
      answer.headers.forEach((value, name) => {
        headers.push(`${name}: ${value}`);
      });
      expect(`${headers.join('\n')}${await answer.text()}`).not.toContain(mock.apiKey);
    }
  });

  it('scrubs the key from an error body the API echoed it in', async () => {
    const api = await rawServer((_req, res) => json(res, 401, { error: { code: 'invalid_api_key', message: 'bad key proxy-secret-key' } }));
    closers.push(api.close);
    const raw = await serve(closers, createProxyHandler({ apiKey: 'proxy-secret-key', baseURL: api.url, authorize: () => true }));
    const response = await fetch(`${raw}/v1/videos/vid_1`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: 'invalid_api_key', message: 'bad key [redacted]' } });
  });
});

describe('authorize', () => {
  it("gives user B a 403 for user A's video (owner recorded by onCreated) and sends the API nothing for it", async () => {
    const video = await create(proxy, 'alice');
    expect(app.owners.get(video.id)).toBe('alice');
    const before = mock.requests.length;
    for (const path of [`/v1/videos/${video.id}`, `/v1/videos/${video.id}/content`]) {
      const bob = await fetch(`${proxy}${path}`, { headers: browser('bob') });
      expect(bob.status).toBe(403);
      expect(await bob.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    }
    expect(mock.requests.length).toBe(before);
    const alice = await fetch(`${proxy}/v1/videos/${video.id}`, { headers: browser('alice') });
    expect(((await alice.json()) as Video).id).toBe(video.id);
  });

  it('refuses list unless authorize returns true for it; passes the query when it does', async () => {
    await create(proxy, 'alice');
    expect((await fetch(`${proxy}/v1/videos`, { headers: browser('alice') })).status).toBe(403);
    const admin = await fetch(`${proxy}/v1/videos?limit=1`, { headers: browser('admin') });
    expect(admin.status).toBe(200);
    expect(await admin.json()).toHaveLength(1);
    // An authorize that answers anything but `true` (a truthy string, a throw) refuses too.
    for (const authorize of [() => 'yes' as unknown as boolean, () => Promise.reject(new Error('session store down'))]) {
      const handler = createProxyHandler({ apiKey: mock.apiKey, baseURL: mock.baseURL, authorize });
      expect((await handler(new Request(`http://app${PREFIX}/v1/videos`))).status).toBe(403);
    }
  });

  it('returns the created video when onCreated fails, and reports the video id to onError', async () => {
    const errors: Array<[unknown, unknown]> = [];
    const failing = createProxyHandler({
      apiKey: mock.apiKey,
      baseURL: mock.baseURL,
      authorize: () => true,
      onCreated: () => Promise.reject(new Error('database down')),
      onError: (error, context) => errors.push([error, context]),
    });
    const url = await serve(closers, failing);
    const response = await fetch(`${url}/v1/videos`, { method: 'POST', body: form() });
    expect(response.status).toBe(200);
    const video = (await response.json()) as Video;
    expect(mock.getVideo(video.id)).toBeDefined();
    expect(errors).toEqual([[new Error('database down'), { action: 'create', createdVideoId: video.id }]]);
  });
});

describe('uploads', () => {
  it('refuses an upload whose Content-Length is over maxUploadBytes with 413, before the API sees a create', async () => {
    const small = await serve(closers, appProxy(mock.baseURL, mock.apiKey, { maxUploadBytes: 10_000 }).handler);
    const body = new Uint8Array(50_000);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${small}/v1/videos`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': body.length, cookie: 'user=alice' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(413);
    expect(mock.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('cuts off a chunked upload once it passes maxUploadBytes (413), and no video is created', async () => {
    const errors: unknown[] = [];
    const small = await serve(
      closers,
      appProxy(mock.baseURL, mock.apiKey, { maxUploadBytes: 100_000, onError: (e) => errors.push(e) }).handler,
    );
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 64_000_000) return controller.close();
        sent += 16_384;
        controller.enqueue(new Uint8Array(16_384));
      },
    });
    const response = await fetch(`${small}/v1/videos`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x', cookie: 'user=alice' },
      body,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(413);
    expect(((await (response as Response).json()) as { error: { code: string } }).error.code).toBe('upload_too_large');
    // Cut off early: the rest of the body was not read (socket buffers hold a few MB at most).
    expect(sent).toBeLessThan(16_000_000);
    expect(mock.creates).toBe(0);
    expect(errors).toEqual([]);
  });

  it('accepts an upload within the limit', async () => {
    const video = await create(proxy, 'alice');
    expect(mock.creates).toBe(1);
    expect(video.status).toBe('PROCESSING');
  });
});

describe('content', () => {
  it('passes the redirect to the signed address through, and answers {"url"} to accept: application/json', async () => {
    const video = await create(proxy, 'alice');
    mock.advance(5_000);
    const redirect = await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: browser('alice'), redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location') ?? '';
    expect(location.startsWith(`${mock.cdnURL}/files/${video.id}.mp4?sig=`)).toBe(true);
    const asJson = await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: browser('alice', { accept: 'application/json' }) });
    expect(asJson.status).toBe(200);
    const { url } = (await asJson.json()) as { url: string };
    expect(url.startsWith(`${mock.cdnURL}/files/${video.id}.mp4?sig=`)).toBe(true);
    // The address plays without the key (what a <video src> does), and the browser's follow of the redirect too.
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const followed = await fetch(`${proxy}/v1/videos/${video.id}/content`, { headers: { cookie: 'user=alice' } });
    expect(followed.headers.get('content-type')).toBe('video/mp4');
    await followed.body?.cancel();
  });

  it("follows the API's redirects on its own origin with the key, handing the browser only the file's", async () => {
    const hopping = await startMockServer({ clock: 'manual', processingMs: 0, sameOriginHop: true });
    closers.push(hopping.close);
    const hopProxy = await serve(closers, createProxyHandler({ apiKey: hopping.apiKey, baseURL: hopping.baseURL, authorize: () => true }));
    const video = (await (await fetch(`${hopProxy}/v1/videos`, { method: 'POST', body: form() })).json()) as Video;
    const asJson = await fetch(`${hopProxy}/v1/videos/${video.id}/content`, { headers: { accept: 'application/json' } });
    expect(((await asJson.json()) as { url: string }).url.startsWith(hopping.cdnURL)).toBe(true);
    expect(hopping.requests.filter((r) => r.path.endsWith('/hop')).map((r) => r.apiKeyValid)).toEqual([true]);
  });

  it('hands the browser no address of a scheme the SDK would not follow (data:, javascript:): a 502', async () => {
    const targets = ['data:text/html,<script>alert(1)</script>', 'javascript:alert(1)'];
    const api = await rawServer((req, res) => {
      res.writeHead(302, { location: targets[Number(req.url?.split('/')[3]?.slice(-1))] ?? '' }).end();
    });
    closers.push(api.close);
    const raw = await serve(closers, createProxyHandler({ apiKey: 'proxy-secret-key', baseURL: api.url, authorize: () => true }));
    for (const index of [0, 1]) {
      const answer = await fetch(`${raw}/v1/videos/vid_${index}/content`, { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
    }
  });

  it("the Node client's contentURL works through the proxy, its own key stripped", async () => {
    const open = await serve(closers, createProxyHandler({ apiKey: mock.apiKey, baseURL: mock.baseURL, authorize: () => true }));
    const client = new AvatarVideo({ apiKey: 'not-the-key', baseURL: open, logLevel: 'off' });
    closers.push(() => client.close());
    const video = await client.videos.create({ audio_reference: wav(2), image_reference: readMockFixture('portrait.png') });
    mock.advance(5_000);
    expect((await client.videos.contentURL(video.id)).startsWith(mock.cdnURL)).toBe(true);
  });
});

describe('errors', () => {
  it('passes a 404 and a 422 from the API through with their status and JSON body', async () => {
    const all = await serve(closers, createProxyHandler({ apiKey: mock.apiKey, baseURL: mock.baseURL, authorize: () => true }));
    const missing = await fetch(`${all}/v1/videos/vid_missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'video_not_found', message: "No video with id 'vid_missing'." } });
    const body = new FormData();
    body.append('image_reference', new Blob([readMockFixture('portrait.png')], { type: 'image/png' }), 'face.png');
    const invalid = await fetch(`${all}/v1/videos`, { method: 'POST', body });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ detail: [{ type: 'missing', loc: ['body', 'audio_reference'] }] });
    expect(invalid.headers.get('content-type')).toContain('application/json');
  });

  it('answers 502 naming no key when the API cannot be reached, and tells onError', async () => {
    const dead = await rawServer(() => {});
    const url = dead.url;
    await dead.close();
    const errors: unknown[] = [];
    const handler = createProxyHandler({ apiKey: 'proxy-secret-key', baseURL: url, authorize: () => true, onError: (e) => errors.push(e) });
    const response = await handler(new Request(`http://app${PREFIX}/v1/videos/vid_1`));
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'api_unreachable', message: expect.any(String) } });
    expect(text).not.toContain('proxy-secret-key');
    expect(errors).toHaveLength(1);
  });

  it('checks its options when made', () => {
    const good = { apiKey: 'k', baseURL: 'https://api.example.com', authorize: () => true };
    const cases: Array<[Partial<ProxyOptions>, string]> = [
      [{ apiKey: '' }, 'apiKey'],
      [{ baseURL: 'not a url' }, 'baseURL'],
      [{ baseURL: 'ftp://api.example.com' }, 'baseURL'],
      [{ baseURL: 'http://api.example.com' }, 'baseURL'],
      [{ authorize: undefined as unknown as ProxyOptions['authorize'] }, 'authorize'],
      [{ maxUploadBytes: 0 }, 'maxUploadBytes'],
    ];
    for (const [patch, argument] of cases) {
      expect(() => createProxyHandler({ ...good, ...patch })).toThrow(expect.objectContaining({ name: 'InvalidArgumentError', argument }));
      expect(() => createProxyHandler({ ...good, ...patch })).toThrow(InvalidArgumentError);
    }
    expect(() => createProxyHandler({ ...good, baseURL: 'http://api.example.com', allowInsecureHttp: true })).not.toThrow();
  });
});

describe('as a web handler', () => {
  it("answers a Request directly: create, retrieve, content as JSON, with a given fetch (undici's, its own Response class)", async () => {
    const sent: string[] = [];
    const handler = appProxy(mock.baseURL, mock.apiKey, {
      fetch: (input, init) => {
        sent.push(String(input));
        return undiciFetch(input as string, init as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
      },
    }).handler;
    const created = await handler(
      new Request(`https://app.example${PREFIX}/v1/videos`, { method: 'POST', headers: browser('carol'), body: form() }),
    );
    expect(created.status).toBe(200);
    const video = (await created.json()) as Video;
    const retrieved = await handler(new Request(`https://app.example${PREFIX}/v1/videos/${video.id}`, { headers: browser('carol') }));
    expect(((await retrieved.json()) as Video).id).toBe(video.id);
    mock.advance(5_000);
    const content = await handler(
      new Request(`https://app.example${PREFIX}/v1/videos/${video.id}/content`, {
        headers: browser('carol', { accept: 'application/json' }),
      }),
    );
    expect(((await content.json()) as { url: string }).url.startsWith(mock.cdnURL)).toBe(true);
    expect(sent.map((url) => new URL(url).pathname)).toEqual(['/v1/videos', `/v1/videos/${video.id}`, `/v1/videos/${video.id}/content`]);
    expect(mock.requests.every((r) => r.origin !== 'api' || r.apiKeyValid)).toBe(true);
  });
});
