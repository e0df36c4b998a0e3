import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANDSCAPE_MP4, type MockServer, type MockServerOptions, PORTRAIT_MP4, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/mock/${name}`, import.meta.url)));
const PNG_PORTRAIT = fixture('portrait.png'); // 90x160
const JPEG_LANDSCAPE = fixture('landscape.jpg'); // 160x90
const REF_PORTRAIT_12S = fixture('ref-portrait-12s.mp4'); // 72x128
const REF_LANDSCAPE_5S = fixture('ref-landscape-5s.mp4');
const MP3_2S = fixture('tone-2s.mp3');

const AUDIO = wav(2);
type Parts = Record<string, Uint8Array | string>;
function form(parts: Parts): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    // Names deliberately lie about the format: the mock must sniff bytes.
    if (typeof value === 'string') body.append(name, value);
    else body.append(name, new Blob([value as Uint8Array<ArrayBuffer>]), `${name}.bin`);
  }
  return body;
}

const closers = useCleanup();
let server: MockServer | undefined;
async function start(options: MockServerOptions = {}): Promise<MockServer> {
  const started = await startMockServer(options);
  server = started;
  closers.push(() => {
    server = undefined;
    return started.close();
  });
  return started;
}
function mock(): MockServer {
  if (!server) throw new Error('start() first');
  return server;
}

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${mock().baseURL}${path}`, {
    redirect: 'manual',
    ...init,
    headers: { 'x-api-key': mock().apiKey, ...(init.headers as Record<string, string>) },
  });
const create = (parts: Parts) => api('/v1/videos', { method: 'POST', body: form(parts) });
async function createOk(parts: Parts = { audio_reference: AUDIO, image_reference: PNG_PORTRAIT }) {
  const res = await create(parts);
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; [key: string]: unknown };
}
type Problem = { type: string; loc: (string | number)[]; msg: string; input: unknown };
/** FastAPI's 422 body: `detail` entries, compared by type, loc and input (msg only for being there). */
async function expectValidation(res: Response, expected: Omit<Problem, 'msg'>[]) {
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]+$/);
  const body = (await res.json()) as { detail: Problem[] };
  expect(res.status).toBe(422);
  expect(body.detail.map(({ type, loc, input }) => ({ type, loc, input }))).toEqual(expected);
  for (const problem of body.detail) expect(problem.msg.length).toBeGreaterThan(0);
  return body.detail.map((problem) => problem.msg);
}
async function expectError(res: Response, status: number, code: string) {
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]+$/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect({ status: res.status, code: body.error.code }).toEqual({ status, code });
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error.message;
}

describe('auth', () => {
  it('rejects a missing key and a wrong key with distinct 401 codes, and redacts the key in the log', async () => {
    const s = await start({ apiKey: 'sekret' });
    await expectError(await fetch(`${s.baseURL}/v1/videos/vid_x`), 401, 'missing_api_key');
    await expectError(await fetch(`${s.baseURL}/v1/videos`, { headers: { 'x-api-key': 'nope' } }), 401, 'invalid_api_key');
    expect(s.requests.map((r) => [r.hasApiKey, r.apiKeyValid, r.headers['x-api-key']])).toEqual([
      [false, false, undefined],
      [true, false, '[redacted]'],
    ]);
    expect(JSON.stringify(s.requests)).not.toContain('nope');
  });

  it('answers an unread upload with 401 and keeps serving on the same connections', async () => {
    const s = await start();
    const big = form({ audio_reference: wav(30, 16000), image_reference: PNG_PORTRAIT });
    for (let i = 0; i < 3; i++) {
      await expectError(
        await fetch(`${s.baseURL}/v1/videos`, { method: 'POST', body: big, headers: { 'x-api-key': 'bad' } }),
        401,
        'invalid_api_key',
      );
    }
    expect((await api('/v1/videos')).status).toBe(200);
  });
});

describe('POST /v1/videos validation', () => {
  const image = PNG_PORTRAIT;
  it.each<[string, number, string, Parts]>([
    ['unknown field', 400, 'unknown_field', { audio_reference: AUDIO, image_reference: image, prompt: 'hi' }],
    [
      'both references',
      400,
      'multiple_visual_references',
      { audio_reference: AUDIO, image_reference: image, video_reference: REF_PORTRAIT_12S },
    ],
    ['no reference', 400, 'missing_visual_reference', { audio_reference: AUDIO }],
    ['image as audio', 400, 'unsupported_format', { audio_reference: image, image_reference: image }],
    ['audio as image', 400, 'unsupported_format', { audio_reference: AUDIO, image_reference: AUDIO }],
    ['image as video', 400, 'unsupported_format', { audio_reference: AUDIO, video_reference: image }],
    ['truncated WAV', 400, 'unreadable_media', { audio_reference: AUDIO.subarray(0, 12), image_reference: image }],
    ['0.5 s audio', 422, 'duration_out_of_range', { audio_reference: wav(0.5), image_reference: image }],
    ['61 s audio', 422, 'duration_out_of_range', { audio_reference: wav(61), image_reference: image }],
    ['5 s video reference', 422, 'duration_out_of_range', { audio_reference: AUDIO, video_reference: REF_LANDSCAPE_5S }],
  ])('%s -> %i %s', async (_name, status, code, parts) => {
    const s = await start();
    await expectError(await create(parts), status, code);
    expect(s.creates).toBe(0);
  });

  it.each<[string, Parts, Omit<Problem, 'msg'>[]]>([
    ['no audio', { image_reference: image }, [{ type: 'missing', loc: ['body', 'audio_reference'], input: null }]],
    [
      'bad model',
      { audio_reference: AUDIO, image_reference: image, model: 'service-avatar-9' },
      [{ type: 'literal_error', loc: ['body', 'model'], input: 'service-avatar-9' }],
    ],
    [
      'reference as text',
      { audio_reference: AUDIO, image_reference: 'https://example.com/a.png' },
      [{ type: 'value_error', loc: ['body', 'image_reference'], input: 'https://example.com/a.png' }],
    ],
    [
      "all declared problems in one answer, ahead of the service's own checks (the unknown field)",
      { video_reference: 'clip.mp4', model: 'service-avatar-9', prompt: 'hi' },
      [
        { type: 'missing', loc: ['body', 'audio_reference'], input: null },
        { type: 'value_error', loc: ['body', 'video_reference'], input: 'clip.mp4' },
        { type: 'literal_error', loc: ['body', 'model'], input: 'service-avatar-9' },
      ],
    ],
  ])("%s -> 422 in FastAPI's shape", async (_name, parts, expected) => {
    const s = await start();
    await expectValidation(await create(parts), expected);
    expect(s.creates).toBe(0);
  });

  it('says what a model must be, as FastAPI words a literal', async () => {
    await start();
    const parts = { audio_reference: AUDIO, image_reference: PNG_PORTRAIT, model: 'service-avatar-9' };
    expect(
      await expectValidation(await create(parts), [{ type: 'literal_error', loc: ['body', 'model'], input: 'service-avatar-9' }]),
    ).toEqual(["Input should be 'service-avatar-x' or 'service-video-1-latest'"]);
  });

  it('names the offending part in format and duration messages', async () => {
    await start();
    expect(
      await expectError(await create({ audio_reference: PNG_PORTRAIT, image_reference: PNG_PORTRAIT }), 400, 'unsupported_format'),
    ).toMatch(/audio_reference.*WAV or MP3.*PNG/);
    expect(
      await expectError(await create({ audio_reference: wav(61), image_reference: PNG_PORTRAIT }), 422, 'duration_out_of_range'),
    ).toMatch(/audio_reference.*61 s.*1 to 60/);
  });

  it('rejects a repeated field and a non-multipart body', async () => {
    await start();
    const body = form({ audio_reference: AUDIO, image_reference: PNG_PORTRAIT });
    body.append('audio_reference', new Blob([AUDIO as Uint8Array<ArrayBuffer>]), 'again.wav');
    await expectError(await api('/v1/videos', { method: 'POST', body }), 400, 'duplicate_field');
    await expectError(
      await api('/v1/videos', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_multipart',
    );
  });

  it('accepts the inclusive duration bounds, MP3 audio and both models', async () => {
    const s = await start();
    await createOk({ audio_reference: wav(1), image_reference: PNG_PORTRAIT });
    await createOk({ audio_reference: wav(60), image_reference: PNG_PORTRAIT, model: 'service-video-1-latest' });
    expect((await createOk({ audio_reference: MP3_2S, image_reference: JPEG_LANDSCAPE })).model).toBe('service-avatar-x');
    expect(s.creates).toBe(3);
  });

  it('gates video references behind preview access with 403', async () => {
    const s = await start({ previewAccess: false });
    const message = await expectError(
      await create({ audio_reference: AUDIO, video_reference: REF_PORTRAIT_12S }),
      403,
      'preview_access_required',
    );
    expect(message).toMatch(/gated preview/);
    await createOk({ audio_reference: AUDIO, image_reference: PNG_PORTRAIT }); // images still work
    expect(s.creates).toBe(1);
  });
});

describe('job lifecycle', () => {
  it('moves PROCESSING -> COMPLETE with the manual clock and returns every field', async () => {
    const s = await start({ clock: 'manual', processingMs: 1000 });
    const created = await createOk({ audio_reference: AUDIO, image_reference: JPEG_LANDSCAPE, model: 'service-video-1-latest' });
    expect(created).toEqual({
      id: expect.stringMatching(/^vid_[0-9a-f]+$/),
      object: 'video',
      status: 'PROCESSING',
      created_at: expect.any(Number),
      completed_at: null,
      progress: 0,
      error: null,
      model: 'service-video-1-latest',
      generation_mode: 'image_to_video',
      aspect_ratio: '16:9',
      source_video_id: null,
      caption_template_id: null,
      video_id: created.id,
    });
    expect(Math.abs((created.created_at as number) - Date.now() / 1000)).toBeLessThan(5);
    const get = async () => (await (await api(`/v1/videos/${created.id}`)).json()) as Record<string, unknown>;
    expect(await get()).toMatchObject({ status: 'PROCESSING', progress: 0 });
    s.advance(505);
    expect(await get()).toMatchObject({ status: 'PROCESSING', progress: 50 });
    s.advance(494);
    expect(await get()).toMatchObject({ status: 'PROCESSING', progress: 99 });
    s.advance(1);
    expect(await get()).toMatchObject({ status: 'COMPLETE', progress: 100, completed_at: (created.created_at as number) + 1, error: null });
    expect(s.creates).toBe(1);
  });

  it('runs on the real clock by default, and advance() adds to it', async () => {
    const s = await start({ processingMs: 200 });
    const waited = await createOk();
    expect(s.getVideo(waited.id)?.status).toBe('PROCESSING');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(s.getVideo(waited.id)?.status).toBe('COMPLETE');
    const skipped = await createOk();
    s.advance(200);
    expect(s.getVideo(skipped.id)?.status).toBe('COMPLETE');
  });

  it('ends enqueued jobs FAILED then CANCELLED, first in first out', async () => {
    const s = await start({ clock: 'manual', processingMs: 100 });
    s.enqueueOutcome({ status: 'FAILED', error: { code: 'generation_failed', message: 'No face found.' } });
    s.enqueueOutcome({ status: 'CANCELLED' });
    const [a, b, c] = [await createOk(), await createOk(), await createOk()];
    s.advance(100);
    const status = async (id: string) => (await (await api(`/v1/videos/${id}`)).json()) as Record<string, unknown>;
    expect(await status(a.id)).toMatchObject({
      status: 'FAILED',
      error: { code: 'generation_failed', message: 'No face found.' },
      completed_at: null,
    });
    expect(await status(b.id)).toMatchObject({ status: 'CANCELLED', error: null });
    expect(await status(c.id)).toMatchObject({ status: 'COMPLETE', error: null });
  });

  it('returns 404 for an unknown video and lets tests force an unknown status', async () => {
    const s = await start();
    await expectError(await api('/v1/videos/vid_missing'), 404, 'video_not_found');
    const { id } = await createOk();
    s.setVideo(id, { status: 'QUEUED' });
    expect(((await (await api(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('QUEUED');
    expect(s.getVideo(id)?.status).toBe('QUEUED');
    expect(await expectError(await api(`/v1/videos/${id}/content`), 409, 'video_not_ready')).toContain('QUEUED');
  });
});

describe('failNext', () => {
  it('injects 429 with Retry-After before auth and the handler, then lets requests through', async () => {
    const s = await start();
    s.failNext({ method: 'post', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '2' }, times: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await create({ audio_reference: AUDIO, image_reference: PNG_PORTRAIT });
      expect(res.headers.get('retry-after')).toBe('2');
      await expectError(res, 429, 'rate_limit_exceeded');
    }
    expect((await api('/v1/videos')).status).toBe(200); // GET is not matched
    await createOk();
    expect(s.creates).toBe(1);
  });

  it('matches paths by RegExp and sends custom bodies', async () => {
    const s = await start();
    s.failNext({ path: /^\/v1\/videos\/[^/]+$/ }, { status: 503, body: '<html>down</html>' });
    expect((await api('/v1/videos')).status).toBe(200); // not matched by the RegExp
    const res = await api('/v1/videos/vid_any');
    expect([res.status, await res.text()]).toEqual([503, '<html>down</html>']);
    await expectError(await api('/v1/videos/vid_any'), 404, 'video_not_found');
  });
});

describe('GET /v1/videos', () => {
  // The service's OpenAPI description: a bare array, order desc|asc, `after` strictly after in that order.
  const page = async (query: string) => {
    const res = await api(`/v1/videos${query}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }[]).map((v) => v.id);
  };

  it('answers a bare array, newest first, `after` strictly after in the order asked', async () => {
    await start();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createOk()).id);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    expect(await page('?limit=2')).toEqual([e, d]);
    expect(await page(`?limit=2&after=${d}`)).toEqual([c, b]);
    expect(await page(`?limit=2&after=${b}`)).toEqual([a]);
    expect(await page(`?after=${a}`)).toEqual([]);
    expect(await page('')).toEqual([e, d, c, b, a]);
    expect(await page('?order=desc')).toEqual([e, d, c, b, a]);
    expect(await page('?order=asc&limit=2')).toEqual([a, b]);
    expect(await page(`?order=asc&after=${b}`)).toEqual([c, d, e]);
  });

  it('pages 20 at a time by default', async () => {
    const s = await start();
    const fields = { model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' } as const;
    for (let i = 0; i < 25; i++) s.state.createVideo(fields);
    const first = await page('');
    expect(first).toHaveLength(20);
    expect(await page(`?after=${first.at(-1)}`)).toHaveLength(5);
  });

  it("answers a bad limit or order with FastAPI's 422, and an unknown after with 400", async () => {
    await start();
    const detail = async (query: string) => {
      const res = await api(`/v1/videos${query}`);
      expect(res.status).toBe(422);
      return ((await res.json()) as { detail: unknown[] }).detail;
    };
    expect(await detail('?limit=101')).toMatchObject([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' },
    ]);
    expect(await detail('?limit=0')).toMatchObject([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
    ]);
    for (const limit of ['ten', '', '2.5']) expect(await detail(`?limit=${limit}`)).toMatchObject([{ type: 'int_parsing' }]);
    expect(await detail('?order=ASC&limit=500')).toMatchObject([
      { loc: ['query', 'limit'], type: 'less_than_equal' },
      { loc: ['query', 'order'], type: 'literal_error' },
    ]);
    await expectError(await api('/v1/videos?after=vid_nope'), 400, 'invalid_after');
  });
});

describe('content download', () => {
  async function completed(options: MockServerOptions = {}, parts?: Parts) {
    const s = await start({ clock: 'manual', ...options });
    const { id } = await createOk(parts);
    s.advance(1_500); // the default processingMs
    return { s, id };
  }

  it('answers 409 naming the status before COMPLETE and 404 for unknown ids', async () => {
    await start({ clock: 'manual' });
    const { id } = await createOk();
    expect(await expectError(await api(`/v1/videos/${id}/content`), 409, 'video_not_ready')).toContain('PROCESSING');
    await expectError(await api('/v1/videos/vid_nope/content'), 404, 'video_not_found');
  });

  it('redirects to the CDN origin, which serves a real MP4 without the key', async () => {
    const { s, id } = await completed({ redirectStatus: 307 });
    const res = await api(`/v1/videos/${id}/content`);
    expect(res.status).toBe(307);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.origin).toBe(s.cdnURL);
    expect(location.origin).not.toBe(s.baseURL);
    expect(location.pathname).toBe(`/files/${id}.mp4`);
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(file.headers.get('accept-ranges')).toBe('bytes');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(Number(file.headers.get('content-length'))).toBe(bytes.byteLength);
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe('ftyp');
  });

  it('uses 302 by default and refuses CDN requests that carry x-api-key', async () => {
    const { s, id } = await completed();
    const res = await api(`/v1/videos/${id}/content`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    await expectError(await fetch(location, { headers: { 'x-api-key': s.apiKey } }), 400, 'credentials_forwarded');
    expect(s.requests.filter((r) => r.origin === 'cdn').map((r) => [r.hasApiKey, r.apiKeyValid, r.headers['x-api-key']])).toEqual([
      [true, true, '[redacted]'],
    ]);
    await expectError(await fetch(location.replace(/\?.*/, '')), 403, 'invalid_signature');
  });

  it('serves byte ranges with 206, 416 and If-Range', async () => {
    const { id } = await completed();
    const location = (await api(`/v1/videos/${id}/content`)).headers.get('location') ?? '';
    const full = await fetch(location);
    const size = Number(full.headers.get('content-length'));
    const etag = full.headers.get('etag') ?? '';
    const all = new Uint8Array(await full.arrayBuffer());
    const range = async (value: string, extra: Record<string, string> = {}) => {
      const res = await fetch(location, { headers: { range: value, ...extra } });
      return { status: res.status, contentRange: res.headers.get('content-range'), body: new Uint8Array(await res.arrayBuffer()) };
    };
    expect(await range('bytes=0-99')).toEqual({ status: 206, contentRange: `bytes 0-99/${size}`, body: all.subarray(0, 100) });
    expect(await range(`bytes=${size - 10}-`)).toEqual({
      status: 206,
      contentRange: `bytes ${size - 10}-${size - 1}/${size}`,
      body: all.subarray(size - 10),
    });
    expect(await range('bytes=-16')).toEqual({
      status: 206,
      contentRange: `bytes ${size - 16}-${size - 1}/${size}`,
      body: all.subarray(size - 16),
    });
    expect(await range('bytes=10-99999999')).toMatchObject({ status: 206, contentRange: `bytes 10-${size - 1}/${size}` });
    expect(await range(`bytes=${size}-`)).toMatchObject({ status: 416, contentRange: `bytes */${size}` });
    expect(await range('bytes=-0')).toMatchObject({ status: 416 });
    expect(await range('bytes=0-9', { 'if-range': '"stale"' })).toMatchObject({ status: 200, contentRange: null, body: all });
    expect(await range('bytes=0-9', { 'if-range': etag })).toMatchObject({ status: 206, body: all.subarray(0, 10) });
    const head = await fetch(location, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('etag')]).toEqual([200, String(size), etag]);
  });

  it('with sameOriginHop, goes through a keyed hop on the API origin first', async () => {
    const { s, id } = await completed({ sameOriginHop: true, redirectStatus: 308 });
    const first = await api(`/v1/videos/${id}/content`);
    expect(first.status).toBe(308);
    const hop = first.headers.get('location') ?? '';
    expect(hop).toBe(`${s.baseURL}/v1/videos/${id}/content/hop`);
    await expectError(await fetch(hop, { redirect: 'manual' }), 401, 'missing_api_key');
    const second = await fetch(hop, { redirect: 'manual', headers: { 'x-api-key': s.apiKey } });
    expect(second.status).toBe(308);
    expect(new URL(second.headers.get('location') ?? '').origin).toBe(s.cdnURL);
  });

  it.each<[string, Parts, string, Uint8Array]>([
    ['portrait PNG', { audio_reference: AUDIO, image_reference: PNG_PORTRAIT }, '9:16', PORTRAIT_MP4],
    ['landscape JPEG', { audio_reference: AUDIO, image_reference: JPEG_LANDSCAPE }, '16:9', LANDSCAPE_MP4],
    ['portrait video', { audio_reference: AUDIO, video_reference: REF_PORTRAIT_12S }, '9:16', PORTRAIT_MP4],
  ])('aspect ratio follows a %s reference, and so does the served file', async (_name, parts, ratio, file) => {
    const { s, id } = await completed({}, parts);
    expect(s.getVideo(id)?.aspect_ratio).toBe(ratio);
    const res = await fetch((await api(`/v1/videos/${id}/content`)).headers.get('location') ?? '');
    const served = await summarizeMp4(new Uint8Array(await res.arrayBuffer()));
    const fixture = await summarizeMp4(file);
    expect([served.width, served.height]).toEqual([fixture.width, fixture.height]);
    expect(served.durationSeconds).toBeCloseTo(2, 3); // as long as AUDIO
  });
});

describe('server', () => {
  it('answers unknown routes with 404 JSON on both origins', async () => {
    const s = await start();
    await expectError(await api('/v1/nothing'), 404, 'not_found');
    await expectError(await fetch(`${s.baseURL}/health`), 404, 'not_found'); // outside /v1: no key needed
    await expectError(await fetch(`${s.cdnURL}/elsewhere`), 404, 'not_found');
  });

  it('survives a client that disconnects mid-upload', async () => {
    const s = await start();
    const controller = new AbortController();
    const endless = new ReadableStream<Uint8Array>({
      pull: (c) => new Promise((r) => setTimeout(() => r(c.enqueue(new Uint8Array(1024))), 5)),
    });
    const upload = fetch(`${s.baseURL}/v1/videos`, {
      method: 'POST',
      body: endless,
      signal: controller.signal,
      headers: { 'x-api-key': s.apiKey, 'content-type': 'multipart/form-data; boundary=x' },
      duplex: 'half',
    } as RequestInit);
    setTimeout(() => controller.abort(), 100);
    await expect(upload).rejects.toThrow();
    expect((await api('/v1/videos')).status).toBe(200);
  });

  it('stops both origins on close()', async () => {
    const s = await start();
    await s.close();
    server = undefined;
    await expect(fetch(`${s.baseURL}/v1/videos`)).rejects.toThrow();
    await expect(fetch(`${s.cdnURL}/files/x.mp4`)).rejects.toThrow();
  });
});
