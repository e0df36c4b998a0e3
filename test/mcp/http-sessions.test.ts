/**
 * `avatar-video mcp --http`'s sessions, the server made in this process by `startHttp` to give it an idle time of a
 * fraction of a second (the command keeps the 30 minutes); its clients still talk to it over loopback sockets, against
 * a mock this test starts. The built command over HTTP is test/e2e/mcp-http.test.ts.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type HttpOptions, startHttp } from '../../src/mcp/http.js';
import { RecentJobs } from '../../src/mcp/recent-jobs.js';
import { rootsFromEnvironment } from '../../src/mcp/roots.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';

const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const closers = useCleanup();

let mock: MockServer;
let work: string;

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 3000 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-mcp-sessions-'));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(media, name), join(work, name));
  closers.push(mock.close, () => rm(work, { recursive: true, force: true }));
});

/** The HTTP server on a free loopback port, against the mock, with the working folder as its fallback root; its URL. */
async function startServer(options: Partial<HttpOptions>): Promise<string> {
  const sdk = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });
  const roots = rootsFromEnvironment({}, work);
  const started = await startHttp({ client: () => sdk, roots, maxWaitSeconds: 55, log: () => {}, port: 0, ...options });
  closers.push(started.close, () => sdk.close());
  return started.url;
}

/** One JSON-RPC POST to `url` (in `session` when given): its status, session header and body (JSON or SSE). */
function rawPost(url: string, message: object, session?: string): Promise<{ status: number; session?: string; body: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (session) headers['mcp-session-id'] = session;
  return new Promise((resolve, reject) => {
    const sent = request(new URL(url), { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const id = res.headers['mcp-session-id'];
        resolve({ status: res.statusCode ?? 0, body: text, ...(typeof id === 'string' ? { session: id } : {}) });
      });
    });
    sent.on('error', reject);
    sent.end(JSON.stringify({ jsonrpc: '2.0', ...message }));
  });
}

describe('mcp --http: idle sessions expire, live ones do not', () => {
  const IDLE_MS = 400;
  let url: string;
  const logged: string[] = [];
  /** The process's job list, counting the servers listening to it. */
  const recent = new (class extends RecentJobs {
    listening = 0;
    override onChange(listener: () => void): () => void {
      this.listening += 1;
      const stop = super.onChange(listener);
      return () => {
        this.listening -= 1;
        return stop();
      };
    }
  })();

  beforeAll(async () => {
    url = await startServer({ log: (line) => logged.push(line), sessionIdleMs: IDLE_MS, recent });
  });

  async function rawSession(): Promise<string> {
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } };
    const opened = await rawPost(url, { id: 1, method: 'initialize', params });
    expect(opened.status).toBe(200);
    const session = opened.session ?? '';
    expect((await rawPost(url, { method: 'notifications/initialized' }, session)).status).toBe(202);
    return session;
  }

  it('a client that left without DELETE loses its session after the idle time: 404, and a line on the log', async () => {
    const session = await rawSession();
    expect((await rawPost(url, { id: 2, method: 'ping' }, session)).status).toBe(200);
    await sleep(IDLE_MS * 3);
    const gone = await rawPost(url, { id: 3, method: 'ping' }, session);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatch(/expired/);
    expect(logged.join('\n')).toContain(`closed session ${session}`);
  });

  it("a server closed with its session, or made for a request that opened none, stops listening to the process's job list", async () => {
    const before = recent.listening;
    expect((await rawPost(url, { id: 1, method: 'ping' })).status).toBe(400);
    expect(recent.listening).toBe(before);
    const session = await rawSession();
    expect(recent.listening).toBe(before + 1);
    await sleep(IDLE_MS * 3);
    expect((await rawPost(url, { id: 2, method: 'ping' }, session)).status).toBe(404);
    expect(recent.listening).toBe(before);
  });

  it('a call answered for longer than the idle time is not cut, nor its session', async () => {
    const session = await rawSession();
    const args = {
      audio_path: join(work, 'speech.wav'),
      image_path: join(work, 'portrait.png'),
      output_path: join(work, 'idle.mp4'),
      wait_seconds: 2,
    };
    const call = await rawPost(url, { id: 2, method: 'tools/call', params: { name: 'generate_video', arguments: args } }, session);
    expect(call.status).toBe(200);
    expect(call.body).toMatch(/PROCESSING/);
    expect((await rawPost(url, { id: 3, method: 'ping' }, session)).status).toBe(200);
  });

  it('an SDK client, its GET stream open, keeps its session however long it is quiet', async () => {
    const client = new Client({ name: 'avatar-video-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(() => client.close());
    await sleep(IDLE_MS * 3);
    expect((await client.listTools()).tools).toHaveLength(7);
  });
});

describe('mcp --http: roots/list during a call', () => {
  let url: string;

  beforeAll(async () => {
    url = await startServer({});
  });

  /** The JSON-RPC messages of an SSE body as they arrive, until the body ends or its request is aborted. */
  async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<{ id?: number; method?: string; result?: unknown }> {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const data = text
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        text = text.slice(end + 2);
        if (data) yield JSON.parse(data.slice(6));
      }
    }
  }

  it("asks on the call's own stream, so a client that has not opened its GET stream (yet) still gets asked", async () => {
    const params = { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'raw', version: '0' } };
    const session = (await rawPost(url, { id: 1, method: 'initialize', params })).session ?? '';
    expect((await rawPost(url, { method: 'notifications/initialized' }, session)).status).toBe(202);
    // No GET stream is ever opened: a roots/list sent apart from the call would be dropped.
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session };
    const args = { audio_path: join(work, 'speech.wav'), image_path: join(work, 'portrait.png') };
    const call = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'validate_inputs', arguments: args } }),
      signal: AbortSignal.timeout(10_000),
    });
    const seen: string[] = [];
    let result: unknown;
    for await (const message of sseMessages(call.body as unknown as AsyncIterable<Uint8Array>)) {
      if (message.method === 'roots/list') {
        seen.push('roots/list');
        const roots = { roots: [{ uri: pathToFileURL(work).href }] };
        expect((await rawPost(url, { id: message.id, result: roots }, session)).status).toBe(202);
      } else if (message.id === 2) {
        result = message.result;
        break;
      }
    }
    expect(seen).toEqual(['roots/list']);
    expect(result).toMatchObject({ structuredContent: { valid: true } });
  });
});
