/**
 * The MCP server's jobs go through the client's job runner, as `videos.generate`'s do: in process, the server spoken
 * to by the MCP SDK's own client over its in-memory transport, the API the mock on loopback sockets. Calls at once
 * share the client's limit on jobs running at once, a refused create is sent again by the runner alone, and a job
 * FAILED for a rate limit is made again (by generate_video and by wait_for_video); a call still answers "still
 * running" when its wait is over.
 */
import { copyFile, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AvatarVideo, type ClientOptions } from '../../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { rawServer } from '../helpers/raw-server.js';
import { connectInProcess } from './in-process.js';

type Structured = Record<string, unknown>;

const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const closers = useCleanup();
const RATE_LIMITED = { status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Too many jobs.' } } as const;
let mock: MockServer;
let client: AvatarVideo;
let work: string;

/** The mock, and the client of every server in the test: to the mock, or through `relay` when it is given. */
async function start(options: MockServerOptions, clientOptions: ClientOptions = {}, relay?: typeof withoutRetryAfter) {
  mock = await startMockServer(options);
  const front = relay ? await relay(mock.baseURL) : undefined;
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: front?.url ?? mock.baseURL, logLevel: 'off', ...clientOptions });
  closers.push(
    () => client.close(),
    () => mock.close(),
    () => front?.close(),
  );
}

/**
 * A server in front of the API at `target` whose 429s say no `Retry-After` (a service that names no time), so a
 * client that retries a refused create on its own schedule comes back before a running job ends.
 */
function withoutRetryAfter(target: string) {
  return rawServer(async (req: IncomingMessage, res: ServerResponse) => {
    const headers = Object.entries(req.headers).filter(([name]) => !['host', 'connection'].includes(name)) as Array<[string, string]>;
    const sent = req.method === 'GET' || req.method === 'HEAD' ? undefined : (Readable.toWeb(req) as ReadableStream);
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: sent,
      duplex: 'half',
      redirect: 'manual',
    } as RequestInit);
    const body = Buffer.from(await answer.arrayBuffer());
    const dropped = ['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'];
    if (answer.status === 429) dropped.push('retry-after', 'x-poll-after');
    const kept: Record<string, string> = { 'content-length': String(body.length) };
    answer.headers.forEach((value, name) => {
      if (!dropped.includes(name)) kept[name] = value;
    });
    res.writeHead(answer.status, kept);
    res.end(body);
  });
}

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'avatar-video-mcp-jobs-')));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(media, name), join(work, name));
});
afterEach(() => rm(work, { recursive: true, force: true }));

/** An MCP client connected in process to a server over `client`, which every server of a test shares. */
async function connect(maxWaitSeconds = 55): Promise<Client> {
  return connectInProcess(() => client, { work, closers, maxWaitSeconds });
}

const generateVideo = (mcp: Client, args: Structured = {}, options?: { signal?: AbortSignal }) =>
  mcp.callTool(
    { name: 'generate_video', arguments: { audio_path: 'speech.wav', image_path: 'portrait.png', ...args } },
    undefined,
    options,
  );

it('five generate_video calls at once, the service refusing creates while 2 jobs run: all five saved, few creates refused', async () => {
  // Jobs outlast a transport's own retries of a refused create (about 1.5 s without a Retry-After).
  await start({ concurrencyLimit: 2, processingMs: 2000 }, {}, withoutRetryAfter);
  const mcp = await connect();
  const results = await Promise.all(Array.from({ length: 5 }, (_, i) => generateVideo(mcp, { output_path: `made-${i}.mp4` })));
  expect(results.map((result) => (result.isError ? JSON.stringify(result.content) : 'saved'))).toEqual(Array(5).fill('saved'));
  for (const [i, result] of results.entries()) {
    expect(result.structuredContent).toMatchObject({ status: 'COMPLETE', path: join(work, `made-${i}.mp4`) });
    expect((await stat(join(work, `made-${i}.mp4`))).size).toBe((result.structuredContent as Structured).bytes);
  }
  expect(mock.creates).toBe(5);
  // The bound videos.generate keeps under the same limit (test/videos/batch.test.ts): the client's limit places the jobs.
  expect(mock.throttledCreates).toBeLessThanOrEqual(2);
});

it('generate_video makes a job FAILED for a rate limit again, and saves the second', async () => {
  await start({ processingMs: 300 });
  mock.enqueueOutcome(RATE_LIMITED);
  const mcp = await connect();
  const result = await generateVideo(mcp, { output_path: 'again.mp4' });
  expect(result.isError).toBeFalsy();
  const saved = result.structuredContent as Structured;
  expect(saved).toMatchObject({ status: 'COMPLETE', path: join(work, 'again.mp4') });
  expect(mock.creates).toBe(2);
  const [first, second] = mock.state.listVideos().toReversed();
  expect(first?.status).toBe('FAILED');
  expect(saved.video_id).toBe(second?.id);
});

it('generate_video answers still running at its deadline; wait_for_video makes a job FAILED for a rate limit again', async () => {
  // The first job runs until the test ends it; the one made again takes 300 ms.
  await start({ processingMs: (index) => (index === 0 ? 600_000 : 300) });
  const mcp = await connect();
  const first = await generateVideo(mcp, { output_path: 'waited.mp4', wait_seconds: 1 });
  const running = first.structuredContent as Structured;
  expect(running).toMatchObject({ status: 'PROCESSING', next: expect.stringMatching(/wait_for_video/) });
  expect(mock.creates).toBe(1);
  mock.setVideo(running.video_id as string, RATE_LIMITED);
  const done = await mcp.callTool({ name: 'wait_for_video', arguments: { video_id: running.video_id, wait_seconds: 30 } });
  expect(done.isError).toBeFalsy();
  const saved = done.structuredContent as Structured;
  expect(saved).toMatchObject({ status: 'COMPLETE', path: join(work, 'waited.mp4') });
  expect(saved.video_id).not.toBe(running.video_id);
  expect(mock.creates).toBe(2);
  // The job made again is this server's now: get_video's description lists it.
  const { tools } = await mcp.listTools();
  expect(tools.find((tool) => tool.name === 'get_video')?.description).toContain(String(saved.video_id));
});

it("a call whose wait ends before the client's limit gives it a place creates nothing, and says so", async () => {
  await start({ processingMs: 600_000 }, { jobConcurrency: 1 });
  // One server holds the client's only place; the other's calls end within 7 s (2 s of waiting).
  const holder = await connect(20);
  const hold = new AbortController();
  const held = generateVideo(holder, { output_path: 'held.mp4', wait_seconds: 14 }, { signal: hold.signal }).catch(() => undefined);
  await expect.poll(() => mock.creates).toBe(1);
  const mcp = await connect(7);
  const result = await generateVideo(mcp, { output_path: 'queued.mp4', wait_seconds: 1 });
  hold.abort();
  await held;
  expect(result.isError).toBe(true);
  const text = JSON.stringify(result.content);
  expect(text).toMatch(/not_started/);
  expect(text).toMatch(/nothing was created/);
  expect(mock.creates).toBe(1);
});

it('a job QUEUED is still running: generate_video says so and names wait_for_video; get_video says wait, then gives the share link', async () => {
  await start({ processingMs: 600_000, queuedMs: 600_000 });
  const mcp = await connect();
  const first = await generateVideo(mcp, { output_path: 'queued.mp4', wait_seconds: 1 });
  const running = first.structuredContent as Structured;
  expect(running).toMatchObject({ status: 'QUEUED', eta_seconds: null, next: expect.stringMatching(/wait_for_video/) });
  const id = running.video_id as string;
  const look = async () => (await mcp.callTool({ name: 'get_video', arguments: { video_id: id } })).structuredContent as Structured;
  expect(await look()).toMatchObject({ status: 'QUEUED', next: expect.stringMatching(/wait_for_video/) });
  mock.setVideo(id, { status: 'SCHEDULED' });
  expect(await look()).toMatchObject({ status: 'SCHEDULED', next: expect.stringMatching(/wait_for_video/) });
  mock.setVideo(id, { status: 'COMPLETE', progress: 100, share_link_url: `https://share.example/${id}` });
  expect(await look()).toMatchObject({
    status: 'COMPLETE',
    share_link_url: `https://share.example/${id}`,
    next: expect.stringMatching(/download_video/),
  });
  expect(mock.creates).toBe(1);
});
