/**
 * `avatar-video mcp` before a hostile or careless agent: the built command over stdio, driven by the MCP SDK's own
 * Client, against the loopback mock started here. An output path that can never be written is refused before the
 * paid create; an id the service does not know is named as unknown, never as a job to wait for; a message over the
 * size the server reads is answered with a JSON-RPC error and the server goes on.
 */
import { copyFile, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { connectMcp } from '../helpers/mcp-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { bin } = await builtPackage();
const closers = useCleanup();
let mock: MockServer;
let work: string;

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 3000 });
  work = await realpath(await mkdtemp(join(tmpdir(), 'avatar-video-mcp-hostile-')));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(root, 'examples/media', name), join(work, name));
  await writeFile(join(work, 'taken.mp4'), 'a file, not a folder');
  closers.push(mock.close, () => rm(work, { recursive: true, force: true }));
});

async function connect() {
  const session = await connectMcp(bin, {
    cwd: work,
    env: { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, AVATAR_VIDEO_MCP_ROOTS: work },
  });
  closers.push(session.close);
  await session.client.listTools();
  return session;
}

/** A failure result's text (its summary and its JSON details). */
function failureText(result: Record<string, unknown>): string {
  expect(result.isError).toBe(true);
  return JSON.stringify(result.content);
}

describe('avatar-video mcp: an output_path that can never be written', () => {
  it('is refused before the paid create, saying why and what to pass: NUL, a name too long, a folder through a file', async () => {
    const session = await connect();
    const before = mock.creates;
    const generate = (output_path: string) =>
      session.client.callTool({
        name: 'generate_video',
        arguments: { audio_path: 'speech.wav', image_path: 'portrait.png', output_path, wait_seconds: 1 },
      });
    const refusals: Array<[string, RegExp]> = [
      ['bad\0name.mp4', /NUL/],
      [`${'v'.repeat(300)}.mp4`, /too long/],
      // The name fits, but the temporary file the save writes beside it (19 bytes more) does not.
      [`${'w'.repeat(240)}.mp4`, /too long/],
      ['taken.mp4/sub/video.mp4', /taken\.mp4\/sub does not exist/],
    ];
    for (const [path, why] of refusals) {
      const text = failureText(await generate(path));
      expect(text, path).toMatch(why);
      expect(text, path).toMatch(/Next: [^"]*output_path/);
      expect(text, path).toMatch(/No job was created|nothing was created/i);
    }
    expect(mock.creates).toBe(before);
    for (const name of ['download_video', 'wait_for_video']) {
      const text = failureText(await session.client.callTool({ name, arguments: { video_id: 'vid_x', output_path: 'a\0b.mp4' } }));
      expect(text, name).toMatch(/NUL/);
    }
    expect(session.stderr()).not.toContain(mock.apiKey);
  });
});

describe('avatar-video mcp: an id the service does not know (404)', () => {
  it('download_video, get_video, wait_for_video and get_video_url say the id is unknown and to find it with list_videos', async () => {
    const session = await connect();
    for (const name of ['download_video', 'get_video', 'wait_for_video', 'get_video_url']) {
      const text = failureText(await session.client.callTool({ name, arguments: { video_id: 'vid_unknown', wait_seconds: 2 } }));
      expect(text, name).toMatch(/unknown_video/);
      expect(text, name).toMatch(/no video has the id vid_unknown/i);
      expect(text, name).toMatch(/Next: [^"]*list_videos/);
      expect(text, name).not.toMatch(/keeps running|wait_for_video with/);
    }
  });
});

describe('avatar-video mcp: a message over the size the server reads', () => {
  it('is answered with a JSON-RPC error naming the limit, logged on stderr, and the server goes on', async () => {
    const session = await connect();
    const huge = 'a'.repeat(11 * 1024 * 1024);
    const call = session.client.callTool({ name: 'validate_inputs', arguments: { audio_path: huge, image_path: 'portrait.png' } });
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32600);
    expect((error as McpError).message).toMatch(/over the 10 MiB[\s\S]*file paths/);
    expect(session.stderr()).toMatch(/dropped a message of \d+ bytes/);
    const after = await session.client.callTool({
      name: 'validate_inputs',
      arguments: { audio_path: 'speech.wav', image_path: 'portrait.png' },
    });
    expect(after.structuredContent).toMatchObject({ valid: true });
    expect(session.errors).toEqual([]);
  });
});
