/**
 * Every `next` of the MCP server's results names a step an agent can take (issue 37): the server made in this
 * process and spoken to by the MCP SDK's own client over its in-memory transport, the API the mock on loopback
 * sockets (or a port nothing listens on). No hint says "try again" where trying again cannot help, "export" where the
 * fix is the client's server configuration, or "inside the allowed roots" of a path that was inside them; a video this
 * process saved is pointed to, never downloaded a second time; the time left carries over from one call to the next.
 */
import { copyFile, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Session } from '../../src/cli/session.js';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { rawServer } from '../helpers/raw-server.js';
import { writeSpeechWav } from '../helpers/speech.js';
import { connectInProcess } from './in-process.js';

type Structured = Record<string, unknown>;

const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const closers = useCleanup();
let work: string;

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'avatar-video-mcp-hints-')));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(media, name), join(work, name));
});
afterEach(() => rm(work, { recursive: true, force: true }));

async function mockAndClient(options: MockServerOptions = {}): Promise<{ mock: MockServer; client: AvatarVideo }> {
  const mock = await startMockServer(options);
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(
    () => client.close(),
    () => mock.close(),
  );
  return { mock, client };
}

/** An MCP client connected in process to a server whose API client comes from `client`. */
async function connect(client: () => AvatarVideo, maxWaitSeconds = 55): Promise<Client> {
  return connectInProcess(client, { work, closers, maxWaitSeconds });
}

const call = (mcp: Client, name: string, args: Structured) => mcp.callTool({ name, arguments: args });
const generate = (mcp: Client, args: Structured = {}) =>
  call(mcp, 'generate_video', { audio_path: 'speech.wav', image_path: 'portrait.png', ...args });

/** A failure's details, as the server sends them (JSON text: no structuredContent on an error). */
function failure(result: Awaited<ReturnType<Client['callTool']>>): { code: string; message: string; next: string; video_id?: string } {
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const [, details] = result.content as Array<{ text: string }>;
  return JSON.parse(details?.text ?? '{}').error;
}

describe('a 404 names the step that finds the right id', () => {
  it('an unknown id, for every tool that takes one: list_videos, never a wait or a retry', async () => {
    const { mock, client } = await mockAndClient();
    const mcp = await connect(() => client);
    for (const name of ['get_video', 'wait_for_video', 'download_video', 'get_video_url']) {
      const answer = failure(await call(mcp, name, { video_id: 'vid_nope' }));
      expect(answer, name).toMatchObject({ code: 'unknown_video', next: expect.stringMatching(/list_videos/) });
      expect(answer.next, name).not.toMatch(/try again|wait_for_video with/);
    }
    expect(mock.creates).toBe(0);
  });

  it('a base URL that leads to no API route (an extra /v1): correct AVATAR_VIDEO_BASE_URL in the server config', async () => {
    const { mock } = await mockAndClient();
    const wrong = new AvatarVideo({ apiKey: mock.apiKey, baseURL: `${mock.baseURL}/v1`, logLevel: 'off' });
    closers.push(() => wrong.close());
    const answer = failure(await call(await connect(() => wrong), 'list_videos', {}));
    expect(answer).toMatchObject({ code: 'no_such_route', next: expect.stringMatching(/AVATAR_VIDEO_BASE_URL.*"env" block/) });
    expect(answer.next).not.toMatch(/try again/);
  });
});

describe('a server without its environment: the fix is the client configuration of the server', () => {
  it('started as `avatar-video mcp` starts it, with no key and no base URL: the env block names both, no "export"', async () => {
    vi.stubEnv('AVATAR_VIDEO_API_KEY', undefined);
    vi.stubEnv('AVATAR_VIDEO_BASE_URL', undefined);
    closers.push(() => vi.unstubAllEnvs());
    const session = new Session(new AbortController().signal, process.stdout, process.stderr);
    session.command = 'npx avatar-video';
    const mcp = await connect(() => session.client());
    for (const name of ['get_video', 'list_videos', 'generate_video']) {
      const result = name === 'generate_video' ? await generate(mcp) : await call(mcp, name, { video_id: 'vid_1' });
      const answer = failure(result);
      expect(answer, name).toMatchObject({ code: 'server_not_configured' });
      expect(answer.next, name).toMatch(/AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL in the "env" block/);
      expect(answer.next, name).toMatch(/restart the server/);
      expect(answer.next, name).toContain('`npx avatar-video mock`');
      expect(JSON.stringify(result.content), name).not.toMatch(/export|keeps running|try again/);
    }
    // The free check still works, and says so in the hint.
    const valid = await call(mcp, 'validate_inputs', { audio_path: 'speech.wav', image_path: 'portrait.png' });
    expect(valid.structuredContent).toMatchObject({ valid: true });
  });

  it("the library's own check (a client made with no key): the setting it names, in the env block", async () => {
    vi.stubEnv('AVATAR_VIDEO_API_KEY', undefined);
    closers.push(() => vi.unstubAllEnvs());
    const mcp = await connect(() => new AvatarVideo({ baseURL: 'http://127.0.0.1:9' }));
    const answer = failure(await call(mcp, 'get_video', { video_id: 'vid_1' }));
    expect(answer).toMatchObject({
      code: 'server_not_configured',
      message: expect.stringMatching(/AVATAR_VIDEO_API_KEY is not set in this server's environment/),
      next: expect.stringMatching(/set AVATAR_VIDEO_API_KEY in the "env" block/),
    });
  });
});

describe('a refused connection: the base URL is wrong or the service is down', () => {
  /** A client to the address of a mock that has stopped: an old AVATAR_VIDEO_BASE_URL. */
  async function deadClient(): Promise<AvatarVideo> {
    const { mock } = await mockAndClient();
    await mock.close();
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    return client;
  }

  it('get_video and list_videos: AVATAR_VIDEO_BASE_URL in the server config, never "try again" or "keeps running"', async () => {
    const client = await deadClient();
    const mcp = await connect(() => client);
    for (const result of [await call(mcp, 'list_videos', {}), await call(mcp, 'get_video', { video_id: 'vid_1' })]) {
      const answer = failure(result);
      expect(answer).toMatchObject({ code: 'service_unreachable', message: expect.stringMatching(/refused the connection/) });
      expect(answer.next).toMatch(/AVATAR_VIDEO_BASE_URL in the "env" block of this server's entry/);
      expect(JSON.stringify(result.content)).not.toMatch(/try again|keeps running/);
    }
  });

  it('generate_video, whose creates are sent again until the call is up: says the service cannot be reached, not "places taken"', async () => {
    const client = await deadClient();
    // A budget of 8 s: the create's place ends 3 s in, then one look at the service tells why nothing was made.
    const answer = failure(await generate(await connect(() => client, 8)));
    expect(answer).toMatchObject({ code: 'service_unreachable', next: expect.stringMatching(/AVATAR_VIDEO_BASE_URL/) });
  }, 20_000);
});

describe('a create whose connection drops once its upload was sent', () => {
  it('says a job may have been made and to look for it with list_videos, not "nothing was created"', async () => {
    // The whole upload read, then the connection closed without an answer.
    const front = await rawServer((req) => req.on('end', () => req.socket.destroy()).resume());
    const client = new AvatarVideo({ apiKey: 'test-key', baseURL: front.url, logLevel: 'off' });
    closers.push(
      () => client.close(),
      () => front.close(),
    );
    const result = await generate(await connect(() => client));
    const answer = failure(result);
    expect(answer.next).toMatch(/^call list_videos to find a job made in the last minutes before calling generate_video again/);
    expect(JSON.stringify(result.content)).not.toMatch(/nothing was created/);
    expect(front.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });
});

describe('an output folder that is missing, inside the allowed roots', () => {
  it('says to create it or pick one that exists, not to give a path inside the roots; nothing is created', async () => {
    const { mock, client } = await mockAndClient();
    const mcp = await connect(() => client);
    const made = await generate(mcp, { output_path: 'made.mp4' });
    const id = (made.structuredContent as Structured).video_id as string;
    const results = [
      await generate(mcp, { output_path: 'missing/video.mp4' }),
      await call(mcp, 'download_video', { video_id: id, output_path: join(work, 'missing', 'video.mp4') }),
    ];
    for (const result of results) {
      const answer = failure(result);
      expect(answer.message).toMatch(/missing does not exist/);
      expect(answer.next).toMatch(/create the folder .*missing first, or pass an output_path in a folder that exists/);
      expect(answer.next).not.toMatch(/inside the allowed roots/);
    }
    expect(mock.creates).toBe(1);
  });
});

describe('a video this process saved', () => {
  it('get_video gives its path; download_video and wait_for_video point to it rather than saving a second copy', async () => {
    const { mock, client } = await mockAndClient();
    const mcp = await connect(() => client);
    const made = (await generate(mcp)).structuredContent as Structured;
    const path = join(work, 'speech.mp4');
    expect(made).toMatchObject({ status: 'COMPLETE', path });
    const id = made.video_id as string;
    const downloads = () => mock.requests.filter((request) => request.path.endsWith('/content')).length;
    const before = downloads();

    const look = (await call(mcp, 'get_video', { video_id: id })).structuredContent as Structured;
    expect(look).toMatchObject({ status: 'COMPLETE', path, next: expect.stringContaining(`already saved by this server at ${path}`) });
    expect(look.next).not.toMatch(/download_video/);

    const downloaded = await call(mcp, 'download_video', { video_id: id });
    expect(downloaded.isError).toBeFalsy();
    expect(downloaded.structuredContent).toEqual({ video_id: id, path, bytes: made.bytes, content_type: 'video/mp4' });
    const waited = await call(mcp, 'wait_for_video', { video_id: id });
    expect(waited.structuredContent).toMatchObject({ status: 'COMPLETE', path, next: expect.stringMatching(/^done/) });

    expect(downloads()).toBe(before);
    expect((await readdir(work)).filter((name) => name.endsWith('.mp4'))).toEqual(['speech.mp4']);

    // Removed since: saved again where it was, under the same name.
    await rm(path);
    const again = await call(mcp, 'download_video', { video_id: id });
    expect(again.structuredContent).toMatchObject({ path });
    expect((await stat(path)).size).toBe(made.bytes);
  });
});

describe('long audio, made in segments', () => {
  it('no result names one segment as the video: the joined MP4 is its path, the jobs are segment_ids', async () => {
    // Jobs that outlast the first call's wait, which generateInSegments holds to at least 1 s, on any machine.
    const { mock, client } = await mockAndClient({ processingMs: 3_000 });
    const mcp = await connect(() => client);
    await writeSpeechWav(join(work, 'long.wav'), 75);
    const args = { audio_path: 'long.wav', output_path: 'long.mp4', allow_segments: true };
    const first = (await generate(mcp, { ...args, wait_seconds: 0.5 })).structuredContent as Structured;
    expect(first).toMatchObject({ status: 'PROCESSING', next: expect.stringMatching(/generate_video again with the same arguments/) });
    expect(first).not.toHaveProperty('video_id');
    const done = (await generate(mcp, { ...args, wait_seconds: 40 })).structuredContent as Structured;
    expect(done).toMatchObject({ status: 'COMPLETE', path: join(work, 'long.mp4') });
    expect(done).not.toHaveProperty('video_id');
    const segments = done.segment_ids as string[];
    expect(segments.length).toBeGreaterThanOrEqual(2);
    expect(mock.creates).toBe(segments.length);
    expect(done.next).toMatch(/^done: the joined MP4 is on disk at path/);
    expect(done.next).not.toMatch(/call (download_video|wait_for_video)/);
  }, 60_000);
});

describe('the time left of a running job', () => {
  it('carries over to the next wait_for_video: the second call starts from the first estimate, not from none', async () => {
    const { client } = await mockAndClient({ processingMs: 40_000 });
    const mcp = await connect(() => client);
    const first = (await generate(mcp, { output_path: 'slow.mp4', wait_seconds: 5 })).structuredContent as Structured;
    expect(first).toMatchObject({ status: 'PROCESSING', eta_seconds: expect.any(Number) });
    // Under a second to wait: one look at the job, whose progress alone makes no estimate.
    const second = (await call(mcp, 'wait_for_video', { video_id: first.video_id, wait_seconds: 0 })).structuredContent as Structured;
    expect(second).toMatchObject({ status: 'PROCESSING', eta_seconds: expect.any(Number) });
    expect(second.eta_seconds as number).toBeLessThanOrEqual(first.eta_seconds as number);
    // A wait of its own, on the job this server made: from the carried estimate until its own fit has one.
    const third = (await call(mcp, 'wait_for_video', { video_id: first.video_id, wait_seconds: 1 })).structuredContent as Structured;
    expect(third).toMatchObject({ status: 'PROCESSING', eta_seconds: expect.any(Number) });
  }, 30_000);
});
