/**
 * A third-party MCP client against the built `avatar-video mcp`: `@modelcontextprotocol/inspector` (its own client,
 * the 2.x split SDK) in `--cli` mode on Node 24, over stdio and over `--http`, with a mock this test starts. What it
 * proves beyond the SDK-client tests: the server speaks to a client we did not write. Under CI=true an inspector
 * that cannot be had (no Node 24, a failed install) fails the tests; elsewhere they are skipped, saying why.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { startHttpServerProcess } from '../helpers/mcp-http.js';
import { type Inspector, inspector } from '../helpers/mcp-inspector.js';
import { usable } from '../helpers/npm-tool.js';

const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const { bin } = await builtPackage();
const closers = useCleanup();

let tool: Inspector;
let mock: MockServer;
let work: string;

beforeAll(async () => {
  tool = await inspector();
  mock = await startMockServer({ processingMs: 300 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-mcp-inspector-'));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(media, name), join(work, name));
  closers.push(mock.close, () => rm(work, { recursive: true, force: true }));
}, 300_000);

/** The inspector, or (a missing one) the test skipped, or under CI failed. */
const need = (context: TestContext) => usable(context, tool);

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `inspector --cli --format json ...args`; its home is the test's folder, so it writes no catalog of the user's. */
function runInspector(found: { node: string; script: string }, args: string[]): Promise<Outcome> {
  const env = { ...process.env, HOME: work, USERPROFILE: work };
  const child = spawn(found.node, [found.script, '--cli', '--format', 'json', ...args], {
    cwd: work,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const outcome: Outcome = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (outcome.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (outcome.stderr += chunk.toString()));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ ...outcome, code });
    });
  });
}

/** The built server over stdio, as the inspector starts it: node, the bin, `mcp`, the mock's key and address. */
function stdioTarget(): string[] {
  return ['-e', `AVATAR_VIDEO_API_KEY=${mock.apiKey}`, '-e', `AVATAR_VIDEO_BASE_URL=${mock.baseURL}`, '--', process.execPath, bin, 'mcp'];
}

/** stdout as JSON, or a failure that shows what the inspector said. */
// biome-ignore lint/suspicious/noExplicitAny: parsed output; the tests assert on it field by field.
function json(outcome: Outcome): any {
  try {
    return JSON.parse(outcome.stdout);
  } catch {
    throw new Error(`inspector printed no JSON (exit ${outcome.code}):\n${outcome.stdout}\n${outcome.stderr}`);
  }
}

describe(`MCP inspector --cli against avatar-video mcp (stdio)`, () => {
  it('tools/list --strict: the seven tools, no schema portability error (exit 0)', { timeout: 120_000 }, async (context) => {
    const outcome = await runInspector(need(context), ['--method', 'tools/list', '--strict', ...stdioTarget()]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const names = json(outcome).result.tools.map((listed: { name: string }) => listed.name);
    expect(names.sort()).toEqual(
      ['download_video', 'generate_video', 'get_video', 'get_video_url', 'list_videos', 'validate_inputs', 'wait_for_video'].sort(),
    );
  });

  it('tools/call validate_inputs: the structured result, exit 0, no job created', { timeout: 120_000 }, async (context) => {
    const creates = mock.creates;
    const args = JSON.stringify({ audio_path: join(work, 'speech.wav'), image_path: join(work, 'portrait.png') });
    const call = ['--method', 'tools/call', '--tool-name', 'validate_inputs', '--tool-args-json', args];
    const outcome = await runInspector(need(context), [...call, ...stdioTarget()]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { result } = json(outcome);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ valid: true, issues: [] });
    expect(mock.creates).toBe(creates);
  });

  it('tools/call get_video: the job the mock holds, exit 0', { timeout: 120_000 }, async (context) => {
    const found = need(context);
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const { id } = await client.videos.create({ audio_reference: join(work, 'speech.wav'), image_reference: join(work, 'portrait.png') });
    mock.setVideo(id, { status: 'PROCESSING', progress: 42 }); // held there, whatever the inspector's start-up takes
    const call = ['--method', 'tools/call', '--tool-name', 'get_video', '--tool-args-json', JSON.stringify({ video_id: id })];
    const outcome = await runInspector(found, [...call, ...stdioTarget()]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { result } = json(outcome);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ video_id: id, status: 'PROCESSING', progress: 42 });
    expect(outcome.stdout + outcome.stderr).not.toContain(mock.apiKey);
  });

  it('tools/call get_video of an unknown id: a tool error the client accepts (exit 5, isError), not a broken result', {
    timeout: 120_000,
  }, async (context) => {
    const call = ['--method', 'tools/call', '--tool-name', 'get_video', '--tool-args-json', JSON.stringify({ video_id: 'vid_missing' })];
    const outcome = await runInspector(need(context), [...call, ...stdioTarget()]);
    // 5 is the inspector's TOOL_ERROR; a result that breaks the tool's output schema is exit 1 instead.
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(5);
    const { result } = json(outcome);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('vid_missing');
  });
});

describe('MCP inspector --cli against avatar-video mcp --http', () => {
  it('tools/list over Streamable HTTP passes the Host and Origin checks, exit 0', { timeout: 120_000 }, async (context) => {
    const found = need(context);
    const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL };
    const server = await startHttpServerProcess(bin, { cwd: work, env });
    closers.push(server.stop);
    const outcome = await runInspector(found, ['--method', 'tools/list', '--transport', 'http', '--server-url', server.url]);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(json(outcome).result.tools).toHaveLength(7);
  });
});
