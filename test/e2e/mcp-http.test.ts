/**
 * `avatar-video mcp --http` as built and installed, spoken to by the MCP SDK's own client over Streamable HTTP, on
 * real loopback sockets, against a mock this test starts: the tools, progress over SSE, and the DNS-rebinding checks
 * (a foreign Origin, a non-loopback Host). The tools' behaviours themselves are tested over stdio (mcp.test.ts), the
 * sessions' idle expiry in process (test/mcp/http-sessions.test.ts).
 */
import { copyFile, mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { spawnCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { type HttpServerProcess, startHttpServerProcess } from '../helpers/mcp-http.js';

const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const { bin } = await builtPackage();
const closers = useCleanup();

let mock: MockServer;
let work: string;
let server: HttpServerProcess;

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 3000 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-mcp-http-'));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(media, name), join(work, name));
  server = await startHttpServerProcess(bin, { cwd: work, env: mockEnv() });
  closers.push(mock.close, () => rm(work, { recursive: true, force: true }), server.stop);
});

function mockEnv() {
  return { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1' };
}

/** A connected SDK client (its own session), closed after the test; with `roots`, it answers roots/list with them. */
async function connect(roots?: string[]): Promise<Client> {
  const capabilities = roots ? { roots: {} } : {};
  const client = new Client({ name: 'avatar-video-test', version: '0' }, { capabilities });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }));
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  closers.push(() => client.close());
  return client;
}

/** An initialize request as a browser page or a program would send it, with the given headers, over a raw socket. */
function rawInitialize(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('mcp --http: the SDK client over Streamable HTTP', () => {
  it('prints its endpoint on stderr, on 127.0.0.1, and nothing on stdout', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toMatch(/loopback only/);
    expect(server.stdout()).toBe('');
  });

  it('lists the seven tools, each with an input and an output schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['download_video', 'generate_video', 'get_video', 'get_video_url', 'list_videos', 'validate_inputs', 'wait_for_video'].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it('validate_inputs checks the files locally and creates nothing', async () => {
    const client = await connect();
    const creates = mock.creates;
    const result = await client.callTool({
      name: 'validate_inputs',
      arguments: { audio_path: join(work, 'speech.wav'), image_path: join(work, 'portrait.png') },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ issues: [] });
    expect(mock.creates).toBe(creates);
  });

  it('generate_video sends progress over SSE (strictly increasing, of 100, naming the id) and saves the MP4', async () => {
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      {
        name: 'generate_video',
        arguments: { audio_path: join(work, 'speech.wav'), image_path: join(work, 'portrait.png'), wait_seconds: 30 },
      },
      undefined,
      { onprogress: (update) => progress.push(update) },
    );
    expect(result.isError).toBeFalsy();
    const content = result.structuredContent as { video_id: string; status: string; path: string; bytes: number };
    expect(content.status).toBe('COMPLETE');
    expect((await stat(content.path)).size).toBe(content.bytes);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const [index, update] of progress.entries()) {
      expect(update.total).toBe(100);
      expect(update.message).toContain(content.video_id);
      if (index > 0) expect(update.progress).toBeGreaterThan(progress[index - 1]?.progress ?? Number.POSITIVE_INFINITY);
    }
    expect(JSON.stringify([result, progress])).not.toContain(mock.apiKey);
  });
});

describe('mcp --http: sessions', () => {
  it("each session asks its own client for roots (roots/list over HTTP): one's files are outside the other's roots", async () => {
    const [mine, theirs] = [join(work, 'mine'), join(work, 'theirs')];
    for (const folder of [mine, theirs]) await mkdir(folder, { recursive: true });
    for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(work, name), join(mine, name));
    const [a, b] = await Promise.all([connect([mine]), connect([theirs])]);
    const args = { audio_path: join(mine, 'speech.wav'), image_path: join(mine, 'portrait.png') };
    const [allowed, refused] = await Promise.all([
      a.callTool({ name: 'validate_inputs', arguments: args }),
      b.callTool({ name: 'validate_inputs', arguments: args }),
    ]);
    expect(allowed.structuredContent).toMatchObject({ valid: true, issues: [] });
    expect(refused.structuredContent).toMatchObject({ valid: false, issues: [{ field: 'audio_path', code: 'outside_roots' }] });
    expect(JSON.stringify(refused.content)).toContain(`outside the allowed roots (${await realpath(theirs)})`);
    // Two sessions, each with its own roots/list round trip through a child process. Its long runs were a roots/list
    // dropped before the client's GET stream opened (test/mcp/http-sessions.test.ts); the bound stays (not a timing claim).
  }, 90_000);

  it('a request naming a session that does not exist gets 404, so the client initializes again', async () => {
    const answer = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(answer.status).toBe(404);
  });
});

describe('mcp --http: DNS-rebinding protection', () => {
  it('answers a program (no Origin) and a page on this machine, on a loopback Host', async () => {
    expect((await rawInitialize({})).status).toBe(200);
    expect((await rawInitialize({ origin: 'http://localhost:6274' })).status).toBe(200);
  });

  it('refuses a foreign Origin with 403 before the request reaches the server', async () => {
    const refused = await rawInitialize({ origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(/Origin "https:\/\/evil\.example" is not a page on this machine/);
    // The server logs the refusal on its stderr, a pipe read apart from the answer: wait for the line to arrive.
    await expect
      .poll(() => server.stderr(), { timeout: 5_000 })
      .toMatch(/refused a POST request with 403: Origin "https:\/\/evil\.example"/);
  });

  it('refuses a non-loopback Host (a DNS name rebound to 127.0.0.1) with 403', async () => {
    const port = new URL(server.url).port;
    const refused = await rawInitialize({ host: `evil.example:${port}` });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(/not a loopback name/);
  });
});

describe('mcp --http --port', () => {
  it('serves on the --port given, and Ctrl-C stops it with its sessions open (exit 0, as mock)', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    const own = await startHttpServerProcess(bin, { cwd: work, env: mockEnv(), extra: ['--port', String(port)] });
    closers.push(own.stop);
    expect(own.url).toBe(`http://127.0.0.1:${port}/mcp`);
    const client = new Client({ name: 'avatar-video-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(own.url)));
    closers.push(() => client.close());
    expect((await client.listTools()).tools).toHaveLength(7);
    expect(await own.stop()).toBe(0);
  });

  it('a port in use is a usage error (exit 2) naming the port and the fix', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => taken.close(resolve)));
    const port = (taken.address() as { port: number }).port;
    const result = await spawnCli(bin, ['mcp', '--http', '--port', String(port)], { cwd: work, env: mockEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    expect(result.stderr).toMatch(/leave --port out/);
  });
});
