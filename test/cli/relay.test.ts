/**
 * `avatar-video relay` as a process of its own (from the sources, through tsx), against a real redis-server, the
 * mock and a node:http receiver started here: it refuses to start without its two variables; its HTTP API refuses
 * what it must (no token, a wrong one, a bad body, a non-http notify URL, a body too large); a watch of a video made
 * on the mock ends with a signed video.completed at the receiver, which Standard Webhooks' own library verifies;
 * the key, the secret and the token appear in no answer and no output; SIGINT ends it with 0.
 *
 * Without redis-server on PATH the tests that need it are skipped, saying how to install it; under CI=true they fail.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { findRedisServer, REDIS_INSTALL_HINT, type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/index.ts')];
const API_KEY = 'relay-test-key-4c1f9e27';
const TOKEN = 'relay-test-token-8d2b6a13f0';
const SECRET = `whsec_${Buffer.from('relay-test-secret-0123456789abcdef').toString('base64')}`;

const closers = useCleanup();
const runnable = findRedisServer() !== undefined || process.env.CI === 'true';
if (!runnable) console.warn(`test/cli/relay.test.ts: tests with Redis skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);

interface Relay {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

/** Start the relay with `env` over the test's own environment (`undefined` removes a variable). */
function startRelay(args: string[], env: Record<string, string | undefined>): Relay {
  const merged: Record<string, string | undefined> = { ...process.env, npm_command: undefined, npm_lifecycle_event: undefined, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const child = spawn(process.execPath, [...CLI, 'relay', ...args], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  const relay: Relay = { child, stdout: '', stderr: '', exited: once(child, 'exit').then(([code]) => code as number | null) };
  child.stdout.on('data', (chunk: Buffer) => {
    relay.stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    relay.stderr += chunk;
  });
  return relay;
}

/** The address the relay prints once it is ready. */
async function addressOf(relay: Relay): Promise<string> {
  for (;;) {
    const found = /relay on (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.stdout)?.[1];
    if (found) return found;
    if (relay.child.exitCode !== null) throw new Error(`the relay exited before it was ready:\n${relay.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const FULL_ENV = { AVATAR_VIDEO_RELAY_TOKEN: TOKEN, AVATAR_VIDEO_WEBHOOK_SECRET: SECRET, AVATAR_VIDEO_API_KEY: API_KEY };

describe('relay: what it needs to start', () => {
  it.each([
    ['AVATAR_VIDEO_RELAY_TOKEN', 'openssl rand -base64 32'],
    ['AVATAR_VIDEO_WEBHOOK_SECRET', 'whsec_$(openssl rand -base64 32)'],
  ])('refuses to start without %s (exit 2), naming it and how to make one', { timeout: 60_000 }, async (variable, how) => {
    const env = { ...FULL_ENV, AVATAR_VIDEO_BASE_URL: 'http://127.0.0.1:9', [variable]: undefined };
    const relay = startRelay(['--redis', '/nowhere/redis.sock', '--port', '0'], env);
    expect(await relay.exited).toBe(2);
    expect(relay.stderr).toContain(`${variable} is not set`);
    expect(relay.stderr).toContain(how);
    for (const secret of [API_KEY, TOKEN, SECRET]) expect(relay.stdout + relay.stderr).not.toContain(secret);
  });

  it('refuses a secret that is not whsec_ and base64 of 24 bytes or more (exit 2), without printing it', { timeout: 60_000 }, async () => {
    const short = `whsec_${Buffer.from('too-short').toString('base64')}`;
    const env = { ...FULL_ENV, AVATAR_VIDEO_BASE_URL: 'http://127.0.0.1:9', AVATAR_VIDEO_WEBHOOK_SECRET: short };
    const relay = startRelay(['--redis', '/nowhere/redis.sock', '--port', '0'], env);
    expect(await relay.exited).toBe(2);
    expect(relay.stderr).toContain('AVATAR_VIDEO_WEBHOOK_SECRET: ');
    expect(relay.stderr).toContain('at least 24 random bytes');
    expect(relay.stdout + relay.stderr).not.toContain(short);
  });
});

/** A receiver of events: every request's headers and body; answers 204. */
async function startReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks/video?tag=relay`, received, close: () => new Promise((done) => server.close(done)) };
}

(runnable ? describe : describe.skip)('relay: the HTTP API, on Redis, the mock and a receiver', () => {
  let redis: RedisServer;
  let mock: MockServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let relay: Relay;
  let url: string;
  /** Every answer's status line, headers and body, to look for secrets in. */
  const answers: string[] = [];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'avatar-relay-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    [redis, mock, receiver] = await Promise.all([
      startRedisServer(dir),
      startMockServer({ apiKey: API_KEY, processingMs: 800 }),
      startReceiver(),
    ]);
    closers.push(
      () => redis.close(),
      () => mock.close(),
      () => receiver.close(),
    );
    relay = startRelay(['--redis', redis.path, '--port', '0', '--allow-private-notify-urls'], {
      ...FULL_ENV,
      AVATAR_VIDEO_BASE_URL: mock.baseURL,
    });
    closers.push(async () => {
      if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
      await relay.exited;
    });
    url = await addressOf(relay);
  }, 60_000);

  const call = async (method: string, path: string, options: { token?: string; body?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${url}${path}`, { method, headers, body: options.body });
    const text = await response.text();
    const lines: string[] = [];
    response.headers.forEach((value, name) => {
      lines.push(`${name}: ${value}`);
    });
    answers.push(`${response.status}\n${lines.join('\n')}\n${text}`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return { status: response.status, json: JSON.parse(text), headers: response.headers };
  };
  /** GET the watch until it is delivered or failed. */
  // biome-ignore lint/suspicious/noExplicitAny: the relay's JSON answer, asserted field by field.
  const settled = async (watch: { id: string; state: string }): Promise<any> => {
    let view = watch;
    while (view.state !== 'delivered' && view.state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      view = (await call('GET', `/watches/${watch.id}`, { token: TOKEN })).json;
    }
    return view;
  };
  const watch = (videoId: string, notifyUrl: string) => JSON.stringify({ video_id: videoId, notify_url: notifyUrl });

  it('refuses a request without the token, or with a wrong one: 401, before reading anything', async () => {
    const body = watch('vid_1', receiver.url);
    const none = await call('POST', '/watches', { body });
    expect(none.status).toBe(401);
    expect(none.json.error.type).toBe('unauthorized');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call('POST', '/watches', { body, token: `${TOKEN}x` })).status).toBe(401);
    expect((await call('GET', '/watches/watch-0', { token: TOKEN.slice(0, -1) })).status).toBe(401);
  });

  it('refuses a bad body (400, naming the field), a non-http notify URL, a body over 16 KB (413), other paths and methods', async () => {
    const bad = await call('POST', '/watches', { body: '{"video_id": ', token: TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: 'invalid_request', message: expect.stringContaining('not JSON') });
    const missing = await call('POST', '/watches', { body: JSON.stringify({ video_id: 'vid_1' }), token: TOKEN });
    expect(missing).toMatchObject({ status: 400, json: { error: { field: 'notify_url' } } });
    const typo = await call('POST', '/watches', { body: JSON.stringify({ video_id: 'vid_1', notifyUrl: receiver.url }), token: TOKEN });
    expect(typo).toMatchObject({ status: 400, json: { error: { field: 'notifyUrl' } } });
    const ftp = await call('POST', '/watches', { body: watch('vid_1', 'ftp://example.com/hook'), token: TOKEN });
    expect(ftp).toMatchObject({ status: 400, json: { error: { type: 'invalid_request', field: 'notify_url' } } });
    expect(ftp.json.error.message).toMatch(/^notify_url /);
    const large = await call('POST', '/watches', { body: watch('vid_1', `${receiver.url}&pad=${'x'.repeat(17_000)}`), token: TOKEN });
    expect(large).toMatchObject({ status: 413, json: { error: { type: 'body_too_large' } } });
    expect((await call('GET', '/', { token: TOKEN })).status).toBe(404);
    const wrong = await call('GET', '/watches', { token: TOKEN });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await call('GET', '/watches/watch-0123', { token: TOKEN })).json.error.type).toBe('not_found');
  });

  it('a watch of a video made on the mock: a signed video.completed at the receiver, then GET says delivered; POST again finds it', {
    timeout: 90_000,
  }, async () => {
    const client = new AvatarVideo({ apiKey: API_KEY, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const video = await client.videos.create({ audio_reference: wav(1), image_reference: mockFixture('portrait.png') });
    const registered = await call('POST', '/watches', { body: watch(video.id, receiver.url), token: TOKEN });
    expect(registered.status).toBe(202);
    expect(registered.json).toMatchObject({ video_id: video.id, state: 'waiting', id: expect.stringMatching(/^watch-/) });
    const view = await settled(registered.json);
    expect(view).toMatchObject({ state: 'delivered', video_status: 'COMPLETE', event_type: 'video.completed', delivery_attempts: 1 });
    expect(view.polls).toBeGreaterThanOrEqual(1);
    expect(receiver.received).toHaveLength(1);
    const [{ headers, body }] = receiver.received as [{ headers: IncomingHttpHeaders; body: string }];
    const event = new Webhook(SECRET).verify(body, headers as Record<string, string>) as Record<string, unknown>;
    expect(event).toMatchObject({ id: view.event_id, type: 'video.completed', data: { id: video.id, status: 'COMPLETE' } });
    expect(headers['webhook-id']).toBe(view.event_id);
    for (const secret of [API_KEY, TOKEN, SECRET]) expect(JSON.stringify(headers) + body).not.toContain(secret);
    const again = await call('POST', '/watches', { body: watch(video.id, receiver.url), token: TOKEN });
    expect(again).toMatchObject({ status: 200, json: { id: registered.json.id, state: 'delivered' } });
  });

  it('a watch of an id the service does not know ends with video.failed, reason video_not_found, delivered', {
    timeout: 90_000,
  }, async () => {
    const registered = await call('POST', '/watches', { body: watch('vid_unknown_1', receiver.url), token: TOKEN });
    expect(registered.status).toBe(202);
    const view = await settled(registered.json);
    expect(view).toMatchObject({ state: 'delivered', video_status: 'FAILED', event_type: 'video.failed', reason: 'video_not_found' });
    const delivered = receiver.received.find(({ headers }) => headers['webhook-id'] === view.event_id);
    const event = new Webhook(SECRET).verify(delivered?.body ?? '', delivered?.headers as Record<string, string>);
    expect(event).toMatchObject({
      type: 'video.failed',
      data: { id: 'vid_unknown_1', status: 'FAILED' },
      reason: { code: 'video_not_found' },
    });
  });

  it('puts the key, the secret and the token in no answer and no output; SIGINT ends it with 0', { timeout: 60_000 }, async () => {
    expect(answers.length).toBeGreaterThan(5);
    relay.child.kill('SIGINT');
    expect(await relay.exited).toBe(0);
    for (const secret of [API_KEY, TOKEN, SECRET]) {
      expect(answers.join('\n')).not.toContain(secret);
      expect(relay.stdout + relay.stderr).not.toContain(secret);
    }
  });
});
