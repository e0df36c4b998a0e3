/**
 * `npx avatar-video mcp` where only the package and the library's dependencies are installed: the MCP SDK and what it
 * needs are bundled into the command, so an agent's client starts it with nothing else there.
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir } = await builtPackage();
const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const closers = useCleanup();
let app: string;

beforeAll(async () => {
  // An app outside the repository: its node_modules holds the package, its dependencies and the bin link, as npm lays them out.
  app = await mkdtemp(join(tmpdir(), 'avatar-video-mcp-install-'));
  closers.push(() => rm(app, { recursive: true, force: true }));
  const installed = join(app, 'node_modules', 'avatar-video');
  await cp(dir, installed, { recursive: true });
  for (const name of Object.keys(manifest.dependencies)) {
    await mkdir(dirname(join(app, 'node_modules', name)), { recursive: true });
    await symlink(join(root, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
  await mkdir(join(app, 'node_modules', '.bin'));
  await symlink(join('..', 'avatar-video', manifest.bin['avatar-video'] ?? 'missing'), join(app, 'node_modules', '.bin', 'avatar-video'));
  await cp(join(root, 'examples/media/speech.wav'), join(app, 'speech.wav'));
  await cp(join(root, 'examples/media/portrait.png'), join(app, 'portrait.png'));
});

it('npx avatar-video mcp serves its tools with only the library’s dependencies installed', async () => {
  // The premise: from the installed package, the MCP SDK is nowhere to be found.
  expect(() =>
    createRequire(join(app, 'node_modules/avatar-video/package.json')).resolve('@modelcontextprotocol/sdk/server/mcp.js'),
  ).toThrow(/Cannot find module|not exported|Cannot find package/);
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no', 'avatar-video', 'mcp'],
    cwd: app,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? app, npm_config_update_notifier: 'false' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'avatar-video-install-test', version: '0.0.0' });
  closers.push(() => client.close());
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(7);
  // No key is set: the local check still works, as it needs none.
  const result = await client.callTool({ name: 'validate_inputs', arguments: { audio_path: 'speech.wav', image_path: 'portrait.png' } });
  expect(result.structuredContent).toMatchObject({ valid: true });
  const get = await client.callTool({ name: 'get_video', arguments: { video_id: 'vid_1' } });
  expect(get.isError).toBe(true);
  expect(JSON.stringify(get.content)).toMatch(/AVATAR_VIDEO_API_KEY/);
}, 60_000);
