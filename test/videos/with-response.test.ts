import { describe, expect, it } from 'vitest';
import { type APIPromise, type APIResponse, AvatarVideo, NotFoundError, type Video } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const KEY = 'sk-with-response-secret-42';
const MP4 = Buffer.from('....ftypisom a few bytes of video');
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const closers = useCleanup();

/** Headers every answer carries: its request id, a cookie, and a header that echoes the key. */
const traced = (id: string) => ({ 'x-request-id': id, 'set-cookie': 'session=abc', 'x-echo': `you sent ${KEY}` });

/** An API with one answer per endpoint, each with its own request id, and a file host the content redirects to. */
async function api() {
  const cdn = await rawServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(MP4.length), ...traced('req_file') });
    res.end(MP4);
  });
  const server = await rawServer((req, res) => {
    if (req.method === 'POST') return json(res, 200, video('vid_new'), traced('req_create'));
    if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE' }), traced('req_retrieve'));
    if (req.url === '/v1/videos' || req.url?.startsWith('/v1/videos?'))
      return json(res, 200, [video('vid_1'), video('vid_2')], traced('req_list'));
    if (req.url === '/v1/videos/vid_1/content') {
      return res.writeHead(302, { location: `${cdn.url}/files/vid_1.mp4?sig=s`, ...traced('req_content') }).end();
    }
    json(res, 404, { error: { code: 'not_found', message: 'no such video' } }, traced('req_missing'));
  });
  const client = new AvatarVideo({ apiKey: KEY, baseURL: server.url, logLevel: 'off' });
  closers.push(cdn.close, server.close, () => client.close());
  return { client, server, cdn };
}

/** The redaction every response's headers get, as on errors. */
function expectRedacted(response: APIResponse<unknown>) {
  expect(response.headers['set-cookie']).toBe('[redacted]');
  expect(response.headers['x-echo']).toBe('you sent [redacted]');
  expect(JSON.stringify(response.headers)).not.toContain(KEY);
}

describe('withResponse() on every API method', () => {
  it('create: the job, with its request id, status and redacted headers', async () => {
    const { client } = await api();
    const response = await client.videos
      .create({ audio_reference: new Uint8Array([1, 2, 3]), image_reference: png }, { validate: false })
      .withResponse();
    expect(response).toMatchObject({ data: { id: 'vid_new' }, requestId: 'req_create', status: 200 });
    expectRedacted(response);
  });

  it('retrieve', async () => {
    const { client } = await api();
    const response = await client.videos.retrieve('vid_1').withResponse();
    expect(response).toMatchObject({ data: { id: 'vid_1', status: 'COMPLETE' }, requestId: 'req_retrieve', status: 200 });
    expectRedacted(response);
  });

  it('list: the first page with its response', async () => {
    const { client } = await api();
    const response = await client.videos.list({ limit: 2 }).withResponse();
    expect(response.data.data.map((v) => v.id)).toEqual(['vid_1', 'vid_2']);
    expect(response).toMatchObject({ requestId: 'req_list', status: 200 });
    expectRedacted(response);
  });

  it('content: the file host answer the bytes came in', async () => {
    const { client } = await api();
    const response = await client.videos.content('vid_1').withResponse();
    expect(Buffer.concat(await response.data.body.toArray())).toEqual(MP4);
    expect(response).toMatchObject({ requestId: 'req_file', status: 200, data: { contentLength: MP4.length } });
    expectRedacted(response);
  });

  it('contentURL: the API redirect that named the address', async () => {
    const { client, cdn } = await api();
    const response = await client.videos.contentURL('vid_1').withResponse();
    expect(response).toMatchObject({ data: `${cdn.url}/files/vid_1.mp4?sig=s`, requestId: 'req_content', status: 302 });
    expectRedacted(response);
    expect(cdn.requests).toHaveLength(0);
  });
});

describe('one request per call', () => {
  it('awaiting a call and its withResponse() sends one request, and they agree', async () => {
    const { client, server } = await api();
    const call = client.videos.retrieve('vid_1');
    const [video, response] = await Promise.all([call, call.withResponse()]);
    expect(await call).toBe(video);
    expect(response.data).toBe(video);
    expect(server.requests).toHaveLength(1);
    const page = client.videos.list();
    await page;
    await page.withResponse();
    expect(server.requests).toHaveLength(2);
  });

  it('is a Promise, and a failed call rejects both ways with the same error', async () => {
    const { client, server } = await api();
    // Where a Promise of the result was expected before, the APIPromise still fits.
    const typed: Promise<Video> = client.videos.retrieve('vid_1');
    await typed;
    const call: APIPromise<unknown> = client.videos.retrieve('vid_missing');
    expect(call).toBeInstanceOf(Promise);
    const [awaited, described] = await Promise.all([call.catch((e: unknown) => e), call.withResponse().catch((e: unknown) => e)]);
    expect(awaited).toBeInstanceOf(NotFoundError);
    expect(described).toBe(awaited);
    expect(server.requests).toHaveLength(2);
    // Used only through withResponse(), a failure rejects that promise alone: no unhandled rejection besides.
    await expect(client.videos.retrieve('vid_missing').withResponse()).rejects.toBeInstanceOf(NotFoundError);
  });
});
