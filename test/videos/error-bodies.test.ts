import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APIError, AuthenticationError, AvatarVideo, BadRequestError, NotFoundError, UnprocessableEntityError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer } from '../helpers/raw-server.js';

// The '/' lets a server spell the key as `\/` inside JSON, which a scrub of the raw text cannot see.
const KEY = 'sk-error/bodies-key-77';
const closers = useCleanup();

/** A loopback server answering every request with `status` and `body` (an object as JSON, a string as is). */
async function answering(status: number, body: unknown) {
  const server = await rawServer((_req, res) => {
    if (typeof body !== 'string') return json(res, status, body);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  // Retries allowed, so a single request proves the SDK chose not to repeat it.
  const client = new AvatarVideo({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 2 });
  closers.push(server.close, () => client.close());
  return { server, client };
}

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const createParams = { audio_reference: new Uint8Array([1, 2, 3]), image_reference: png };
const LITERAL = "Input should be 'service-avatar-x' or 'service-video-1-latest'";

describe("422 in FastAPI's shape", () => {
  it('a missing part and a wrong literal: the message names each, details hold them, one request sent', async () => {
    const body = {
      detail: [
        { type: 'missing', loc: ['body', 'audio_reference'], msg: 'Field required', input: null },
        { type: 'literal_error', loc: ['body', 'model'], msg: LITERAL, input: 'service-avatar-9' },
      ],
    };
    const { server, client } = await answering(422, body);
    const error = await client.videos.create(createParams, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as UnprocessableEntityError;
    expect(apiError.message).toBe(`422: body.audio_reference: Field required; body.model: ${LITERAL}`);
    expect(apiError.details).toEqual([
      { location: 'body.audio_reference', message: 'Field required', type: 'missing' },
      { location: 'body.model', message: LITERAL, type: 'literal_error' },
    ]);
    expect(apiError.code).toBeUndefined();
    expect(apiError.body).toEqual(body);
    expect(apiError.toJSON().details).toEqual(apiError.details);
    expect(server.requests.map((request) => request.method)).toEqual(['POST']);
  });

  it('a query bound on a read: `query.limit`, and the read is not retried either', async () => {
    // The SDK refuses limit 101 itself; a service with a tighter bound than ours still answers this way.
    const problem = { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 50', input: '60' };
    const { server, client } = await answering(422, { detail: [problem] });
    const error = (await client.videos.list({ limit: 60 }).catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.message).toBe('422: query.limit: Input should be less than or equal to 50');
    expect(error.details).toEqual([{ location: 'query.limit', message: problem.msg, type: 'less_than_equal' }]);
    expect(server.requests.map((request) => [request.method, request.url])).toEqual([['GET', '/v1/videos?limit=60']]);
  });

  it('joins numbers in loc, keeps an entry without a type, and skips entries that say nothing', async () => {
    const { client } = await answering(422, {
      detail: [{ loc: ['body', 'items', 0, 'name'], msg: 'Field required' }, { loc: [], msg: '' }, 42, 'a bare string'],
    });
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(error.details).toEqual([
      { location: 'body.items.0.name', message: 'Field required' },
      { location: '', message: 'a bare string' },
    ]);
    expect(error.message).toBe('422: body.items.0.name: Field required; a bare string');
  });

  it('lists the first 10 problems, clips a long one, and counts the rest; details keep all', async () => {
    const detail = Array.from({ length: 25 }, (_, i) => ({ type: 'missing', loc: ['body', `part_${i}`], msg: 'Field required' }));
    detail[0] = { type: 'value_error', loc: ['body', 'part_0'], msg: 'x'.repeat(5000) };
    const { client } = await answering(422, { detail });
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(error.details).toHaveLength(25);
    expect(error.details[0]?.message).toHaveLength(5000);
    expect(error.message).toContain('body.part_9: Field required; and 15 more');
    expect(error.message).not.toContain('part_10');
    expect(error.message.length).toBeLessThan(600);
  });
});

describe('other bodies', () => {
  it('a string detail is the message, with no details', async () => {
    const { server, client } = await answering(404, { detail: 'Not Found' });
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('404: Not Found');
    expect(error.details).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [{ error: { code: 'bad', message: 'nested' } }, 'bad', '400 bad: nested'],
    [{ code: 'flat', message: 'flat message' }, 'flat', '400 flat: flat message'],
    [{ message: 'only message' }, undefined, '400: only message'],
    [{}, undefined, '400: no error message in the response'],
  ])('the older shape %j reads as before, with no details', async (body, code, message) => {
    const { client } = await answering(400, body);
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({ code, message, details: [] });
  });
});

describe('a base URL that is not the API', () => {
  // What `python3 -m http.server` (or any web server) answers for a path it does not have.
  const PAGE = `<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body>${'<p>Nothing matches the given URI</p>'.repeat(200)}</body></html>`;

  /** A web server answering every request with an HTML page of `status`, and a client whose base URL is it. */
  async function webServer(status: number, contentType = 'text/html;charset=utf-8') {
    const server = await rawServer((_req, res) => res.writeHead(status, { 'content-type': contentType }).end(PAGE));
    const client = new AvatarVideo({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
    closers.push(server.close, () => client.close());
    return { server, client, host: new URL(server.url).host };
  }

  it('an HTML 404 says the server at its host answered a page, not the API, and to check baseURL', async () => {
    const { client, host } = await webServer(404);
    const error = (await client.videos.content('vid_1').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`404: the server at ${host} answered an HTML page ("Error response"), not the API's JSON: check baseURL`);
    // The page itself stays on `body`, cut as any text body is.
    expect(String(error.body)).toMatch(/^<!DOCTYPE HTML>\n<html><head><title>Error response/);
    expect(String(error.body).length).toBeLessThanOrEqual(2049);
  });

  it('the same from a JSON request (retrieve, create), the page typed text/html or not, naming the host', async () => {
    for (const type of ['text/html', 'application/octet-stream']) {
      const { client, host } = await webServer(405, type);
      const errors = [
        await client.videos.retrieve('vid_1').catch((e: unknown) => e),
        await client.videos.create(createParams, { validate: false }).catch((e: unknown) => e),
      ] as APIError[];
      for (const error of errors) {
        expect(error.status).toBe(405);
        expect(error.message).toBe(
          `405: the server at ${host} answered an HTML page ("Error response"), not the API's JSON: check baseURL`,
        );
      }
    }
  });

  it('an HTML 502 may be a gateway in front of the right API: it says so', async () => {
    const { client } = await webServer(502);
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/answered an HTML page .*: a proxy or gateway in front of the API failed, or baseURL points elsewhere$/);
  });

  it('a base URL ending in /v1 (or /v1/): a 404 at /v1/v1/... says the SDK adds /v1 itself', async () => {
    const server = await rawServer((_req, res) => json(res, 404, { detail: 'Not Found' }));
    closers.push(server.close);
    for (const suffix of ['/v1', '/v1/']) {
      const client = new AvatarVideo({ apiKey: KEY, baseURL: `${server.url}${suffix}`, logLevel: 'off', maxRetries: 0 });
      closers.push(() => client.close());
      const error = (await client.videos.content('vid_1').catch((e: unknown) => e)) as NotFoundError;
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.message).toBe(
        "404: Not Found (baseURL ends in /v1, and the SDK adds /v1 itself: drop /v1 from baseURL, e.g. 'https://api.example.com')",
      );
    }
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/v1/videos/vid_1/content', '/v1/v1/videos/vid_1/content']);
    // The same hint from the JSON requests.
    const client = new AvatarVideo({ apiKey: KEY, baseURL: `${server.url}/v1`, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    const fromJson = [
      await client.videos.retrieve('vid_1').catch((e: unknown) => e),
      await client.videos.create(createParams, { validate: false }).catch((e: unknown) => e),
    ];
    for (const error of fromJson) {
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toMatch(
        /^404: Not Found \(baseURL ends in \/v1, and the SDK adds \/v1 itself: drop \/v1 from baseURL/,
      );
    }
    expect(server.requests.slice(2).map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /v1/v1/videos/vid_1',
      'POST /v1/v1/videos',
    ]);
    // The same 404 at the right path is only the API's word: no hint.
    const right = new AvatarVideo({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
    closers.push(() => right.close());
    const plain = await right.videos.content('vid_1').catch((e: unknown) => e);
    expect((plain as Error).message).toBe('404: Not Found');
  });
});

describe('the key echoed in a detail', () => {
  it('is scrubbed from the message, details, body, JSON and inspect, plain or JSON-escaped', async () => {
    const escaped = KEY.replace('/', '\\/');
    const text = `{"detail":[{"type":"value_error","loc":["header","${escaped}"],"msg":"key ${escaped} is not valid","input":"${KEY}"}]}`;
    expect(JSON.parse(text).detail[0].msg).toBe(`key ${KEY} is not valid`);
    const { client } = await answering(401, text);
    const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.details).toEqual([{ location: 'header.[redacted]', message: 'key [redacted] is not valid', type: 'value_error' }]);
    expect(error.message).toBe('401: header.[redacted]: key [redacted] is not valid');
    for (const view of [error.message, JSON.stringify(error.details), JSON.stringify(error.body), JSON.stringify(error), inspect(error)]) {
      expect(view).not.toContain(KEY);
      expect(view).not.toContain(escaped);
    }
  });
});
