import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideo,
  AvatarVideoError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
  ResponseValidationError,
} from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';
import { SENDERS } from '../helpers/senders.js';

describe.each(SENDERS)('over $name', ({ via }) => {
  const KEY = 'sk-secret-transport-key-123';
  const closers = useCleanup();

  async function setup(handler: Parameters<typeof rawServer>[0], options: ConstructorParameters<typeof AvatarVideo>[0] = {}) {
    const server = await rawServer(handler);
    const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: server.url, logLevel: 'off', ...options });
    closers.push(server.close, () => client.close());
    return { server, client };
  }

  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const createParams = { audio_reference: new Uint8Array([1, 2, 3]), image_reference: png };

  describe('retries', () => {
    it('retries a GET after 429 with Retry-After in seconds, waiting that long', async () => {
      const { server, client } = await setup((_req, res, i) =>
        i === 0
          ? json(res, 429, { error: { code: 'rate_limit_exceeded', message: 'slow' } }, { 'retry-after': '0.3' })
          : json(res, 200, video()),
      );
      const started = performance.now();
      await expect(client.videos.retrieve('vid_1')).resolves.toMatchObject({ id: 'vid_1' });
      expect(server.requests).toHaveLength(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });

    it('retries after 429 with Retry-After as an HTTP-date, waiting until that date', async () => {
      // An HTTP-date has whole seconds: the clock (Date only; timers stay real) is set 0.3 s before one.
      const date = (Math.ceil(Date.now() / 1000) + 1) * 1000;
      vi.useFakeTimers({ toFake: ['Date'], now: date - 300 });
      closers.push(() => vi.useRealTimers());
      const when = new Date(date).toUTCString();
      const { server, client } = await setup((_req, res, i) =>
        i === 0 ? json(res, 429, { message: 'slow' }, { 'retry-after': when }) : json(res, 200, video()),
      );
      const started = performance.now();
      await client.videos.retrieve('vid_1');
      expect(server.requests).toHaveLength(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });

    it('fails fast with retryAfter set when the hint exceeds maxRetryDelay', async () => {
      const { server, client } = await setup((_req, res) =>
        json(res, 429, { error: { code: 'rate_limit_exceeded', message: 'later' } }, { 'retry-after': '120' }),
      );
      const error = await client.videos.retrieve('vid_1').catch((e) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.retryAfter).toBe(120_000);
      expect(error.code).toBe('rate_limit_exceeded');
      expect(server.requests).toHaveLength(1);
    });

    it('retries a GET after 503 and gives up after maxRetries', async () => {
      const { server, client } = await setup((_req, res) => json(res, 503, { message: 'down' }), { maxRetries: 2 });
      await expect(client.videos.retrieve('vid_1', { maxRetryDelay: 10 })).rejects.toBeInstanceOf(InternalServerError);
      expect(server.requests).toHaveLength(3);
    });

    it('retries a GET after the connection is reset', async () => {
      const { server, client } = await setup((req, res, i) => (i === 0 ? req.socket.destroy() : json(res, 200, video())));
      await expect(client.videos.retrieve('vid_1')).resolves.toMatchObject({ id: 'vid_1' });
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry a create after a 500: the job may exist', async () => {
      const { server, client } = await setup((_req, res) => json(res, 500, { message: 'oops' }));
      await expect(client.videos.create(createParams, { validate: false })).rejects.toBeInstanceOf(InternalServerError);
      expect(server.requests).toHaveLength(1);
    });

    it('does not retry a create after a reset mid-request', async () => {
      const { server, client } = await setup((req) => req.socket.destroy());
      await expect(client.videos.create(createParams, { validate: false })).rejects.toBeInstanceOf(APIConnectionError);
      expect(server.requests).toHaveLength(1);
    });

    it('retries a create after 503 and 429, resending the whole body', async () => {
      const { server, client } = await setup((req, res, i) => {
        req.resume();
        req.on('end', () =>
          i < 2 ? json(res, i === 0 ? 503 : 429, { message: 'busy' }, { 'retry-after': '0' }) : json(res, 200, video()),
        );
      });
      await expect(client.videos.create(createParams, { validate: false })).resolves.toMatchObject({ id: 'vid_1' });
      expect(server.requests).toHaveLength(3);
      expect(new Set(server.requests.map((r) => r.bodyBytes)).size).toBe(1);
      expect(server.requests[0]?.bodyBytes).toBeGreaterThan(0);
    });

    it('retries a create when the connection was refused before sending', async () => {
      const server = await rawServer(() => {});
      const port = new URL(server.url).port;
      await server.close();
      const lines: string[] = [];
      const logger = { debug: () => {}, info: (m: string) => lines.push(m), warn: () => {}, error: () => {} };
      const refused = new AvatarVideo({
        ...via,
        apiKey: KEY,
        baseURL: `http://127.0.0.1:${port}`,
        logger,
        logLevel: 'info',
        maxRetryDelay: 5,
      });
      closers.push(() => refused.close());
      const error = await refused.videos.create(createParams, { validate: false, maxRetries: 1 }).catch((e) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).cause).toBeDefined();
      expect(lines.filter((line) => line.includes('retrying'))).toHaveLength(1);
    });
  });

  describe('timeouts and aborts', () => {
    it('times out a body that stalls after the headers', async () => {
      const { client } = await setup((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":');
      });
      const error = await client.videos.retrieve('vid_1', { timeout: 300, maxRetries: 0 }).catch((e) => e);
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
      expect(error.cause).toBeDefined();
    });

    it('times out slow headers, and retries reads on timeout', async () => {
      const { server, client } = await setup((_req, res, i) => (i === 0 ? undefined : json(res, 200, video())));
      await expect(client.videos.retrieve('vid_1', { timeout: 300, maxRetries: 1, maxRetryDelay: 5 })).resolves.toMatchObject({
        id: 'vid_1',
      });
      expect(server.requests).toHaveLength(2);
    });

    it('keeps each request to its own deadline: a short one ends while a longer one is in flight, or after it', async () => {
      // vid_drip sends a byte every 20 ms: undici's idle timeouts never fire, only the request's own deadline ends it.
      const { server, client } = await setup((req, res) => {
        if (req.url === '/v1/videos/vid_fast') return json(res, 200, video());
        res.writeHead(200, { 'content-type': 'application/json' });
        const drip = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(drip));
      });
      const controller = new AbortController();
      // Deadlines share one timer: it is set for a minute here, so the short requests below must bring it forward.
      const long = client.videos.retrieve('vid_drip', { timeout: 60_000, maxRetries: 0, signal: controller.signal }).catch((e) => e);
      await expect(client.videos.retrieve('vid_drip', { timeout: 100, maxRetries: 0 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
      await client.videos.retrieve('vid_fast', { timeout: 60_000 });
      await expect(client.videos.retrieve('vid_drip', { timeout: 100, maxRetries: 0 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
      controller.abort();
      expect(await long).toBeInstanceOf(APIUserAbortError);
      expect(server.requests).toHaveLength(4);
    });

    it('rejects at once when the signal is already aborted, sending nothing', async () => {
      const { server, client } = await setup((_req, res) => json(res, 200, video()));
      const controller = new AbortController();
      controller.abort(new Error('user gave up'));
      const error = await client.videos.retrieve('vid_1', { signal: controller.signal }).catch((e) => e);
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(server.requests).toHaveLength(0);
    });

    it('aborts during a request', async () => {
      const { client } = await setup(() => {});
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop')), 100);
      const error = await client.videos.retrieve('vid_1', { signal: controller.signal }).catch((e) => e);
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect((error.cause as Error).message).toBe('stop');
    });

    it('aborts during a retry wait', async () => {
      const controller = new AbortController();
      // Abort as the 30 s retry wait begins (a sleep the abort did not end would outlast the test's timeout).
      const logger = { debug() {}, info: (line: string) => line.includes('retrying in') && controller.abort(), warn() {}, error() {} };
      const { server, client } = await setup((_req, res) => json(res, 503, {}, { 'retry-after': '30' }), { logger, logLevel: 'info' });
      await expect(client.videos.retrieve('vid_1', { signal: controller.signal })).rejects.toBeInstanceOf(APIUserAbortError);
      expect(controller.signal.aborted).toBe(true);
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('errors', () => {
    it.each([
      ['{"error":{"code":"bad","message":"nested"}}', 'bad', 'nested'],
      ['{"code":"flat","message":"flat message"}', 'flat', 'flat message'],
      ['{"message":"only message"}', undefined, 'only message'],
      ['plain words', undefined, 'plain words'],
      ['<html><head><title>502 Bad Gateway</title></head></html>', undefined, '502 Bad Gateway'],
    ])('parses the error body %s', async (body, code, message) => {
      const { client } = await setup((_req, res) => {
        res.writeHead(400, { 'x-request-id': 'req_42' });
        res.end(body);
      });
      const error = await client.videos.retrieve('vid_1').catch((e) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.code).toBe(code);
      expect(error.message).toContain(message);
      expect(error.requestId).toBe('req_42');
      expect(error.status).toBe(400);
    });

    it('reads request-id when x-request-id is absent', async () => {
      const { client } = await setup((_req, res) => json(res, 401, { message: 'no' }, { 'request-id': 'r-7' }));
      const error = await client.videos.retrieve('vid_1').catch((e) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.requestId).toBe('r-7');
    });

    it('never exposes the key: errors, headers, JSON, inspect', async () => {
      const { client } = await setup((_req, res) =>
        json(
          res,
          401,
          { error: { code: 'invalid_api_key', message: `key ${KEY} is not valid` } },
          { 'set-cookie': 'session=abc', 'x-api-key': KEY },
        ),
      );
      const error = await client.videos.retrieve('vid_1').catch((e) => e);
      const views = [
        error.message,
        JSON.stringify(error),
        inspect(error, { depth: 5 }),
        inspect(client, { depth: 5, showHidden: true }),
        JSON.stringify(client),
      ];
      for (const view of views) expect(view).not.toContain(KEY);
      expect(error.headers['set-cookie']).toBe('[redacted]');
      expect(error.headers['x-api-key']).toBe('[redacted]');
    });

    it('keeps the key out of log lines', async () => {
      const lines: string[] = [];
      const logger = {
        debug: (m: string) => lines.push(m),
        info: (m: string) => lines.push(m),
        warn: (m: string) => lines.push(m),
        error: (m: string) => lines.push(m),
      };
      const { client } = await setup((_req, res, i) => (i === 0 ? json(res, 503, {}, { 'retry-after': '0' }) : json(res, 200, video())), {
        logger,
        logLevel: 'debug',
      });
      await client.videos.retrieve('vid_1');
      expect(lines.length).toBeGreaterThan(2);
      expect(lines.join('\n')).not.toContain(KEY);
      expect(lines.some((line) => line.includes('retrying'))).toBe(true);
    });

    it('throws ResponseValidationError with the raw body for a contract break', async () => {
      const { client } = await setup((_req, res) => json(res, 200, { id: 'vid_1', status: 7 }, { 'x-request-id': 'req_9' }));
      const error = await client.videos.retrieve('vid_1').catch((e) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error.body).toEqual({ id: 'vid_1', status: 7 });
      expect(error.requestId).toBe('req_9');
      expect(error.problems.join()).toMatch(/status|created_at/);
    });

    it('throws ResponseValidationError for a non-JSON 200', async () => {
      const { client } = await setup((_req, res) => {
        res.writeHead(200);
        res.end('<html>captive portal</html>');
      });
      await expect(client.videos.retrieve('vid_1')).rejects.toBeInstanceOf(ResponseValidationError);
    });
  });

  describe('requests', () => {
    it('sends the key, the user-agent and per-call headers; per-call options win', async () => {
      const { server, client } = await setup((_req, res) => json(res, 200, video()), { headers: { 'x-team': 'a' } });
      await client.videos.retrieve('vid_1', { headers: { 'x-team': 'b', 'x-api-key': 'override-attempt' } });
      const headers = server.requests[0]?.headers ?? {};
      expect(headers['x-api-key']).toBe(KEY);
      expect(headers['user-agent']).toMatch(/^avatar-video\/\d+\.\d+\.\d+ node\/\d+\.\d+\.\d+$/);
      expect(headers['x-team']).toBe('b');
    });

    it('encodes hostile ids in the path', async () => {
      const { server, client } = await setup((_req, res) => json(res, 200, video()));
      await client.videos.retrieve('../admin?x=1');
      expect(server.requests[0]?.url).toBe('/v1/videos/..%2Fadmin%3Fx%3D1');
      await expect(client.videos.retrieve('..')).rejects.toThrow(AvatarVideoError);
    });

    it('keeps a base path prefix', async () => {
      const server = await rawServer((_req, res) => json(res, 200, video()));
      const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: `${server.url}/api`, logLevel: 'off' });
      closers.push(server.close, () => client.close());
      await client.videos.retrieve('vid_1');
      expect(server.requests[0]?.url).toBe('/api/v1/videos/vid_1');
    });
  });
});
