/**
 * The packed package in Bun and Deno (the versions of test/helpers/runtimes.ts, from npm), in a project made by
 * `npm init -y`: a script's `generate` to a file and a `generateLong` of audio longer than the mock allows in one job,
 * the CLI's `mock` and `generate`, and (Bun) the CLI through a proxy and a `bun test` file against
 * `avatar-video/testing`. Deno takes the package through `npm:` specifiers from the project's node_modules (`nodeModulesDir: "manual"`: it is on no registry).
 * Under CI=true a runtime that cannot be had fails its tests; elsewhere they are skipped, saying why.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { usable } from '../helpers/npm-tool.js';
import { type Runtime, type RuntimeBinary, runtimeBinary } from '../helpers/runtimes.js';
import { writeSpeechWav } from '../helpers/speech.js';
import { finished } from '../helpers/system-command.js';
import { userProject } from '../helpers/user-project.js';

const media = fileURLToPath(new URL('../../examples/media', import.meta.url));
const { tarball } = await builtPackage();
const closers = useCleanup();

/** The user's script: `generate` to a file, then `generateLong`; `PKG` is the package's specifier in the runtime. */
const SCRIPT = `import process from 'node:process';
import { AvatarVideo } from 'PKG';

const [media, longAudio, dir] = process.argv.slice(-3);
const client = new AvatarVideo(); // AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL from the environment
const image_reference = media + '/portrait.png';
const short = await client.videos.generate({ audio_reference: media + '/speech.wav', image_reference }, { output: dir + '/short.mp4' });
const long = await client.videos.generateLong({ audio_reference: longAudio, image_reference }, { output: dir + '/long.mp4' });
await client.close();
console.log(JSON.stringify({ short: short.path, long: long.path, segments: long.segments.length }));
`;

/** A test file of the user's project under `bun test`, against the mock of `avatar-video/testing`. */
const BUN_TEST = `import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { AvatarVideo } from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = ${JSON.stringify(media)};
let mock, client;
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 50 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
});
afterAll(async () => {
  await client.close();
  await mock.close();
});

test('create, wait and download against the mock', async () => {
  const video = await client.videos.create({ audio_reference: media + '/speech.wav', image_reference: media + '/portrait.png' });
  const done = await client.videos.waitForCompletion(video.id);
  const saved = await client.videos.download(done.id, 'bun-test.mp4');
  const bytes = await readFile(saved.path);
  expect(done.status).toBe('COMPLETE');
  expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
  expect(bytes.toString('latin1')).toContain('avatar-video-mock; job=' + done.id);
});
`;

let project: string;

beforeAll(async () => {
  const made = await userProject('avatar-video-runtimes-', tarball, [], closers);
  const failed = made.installs.find((install) => install.code !== 0);
  if (failed) throw new Error(`npm install ${failed.args.join(' ')} failed:\n${failed.stderr}`);
  project = made.dir;
  await writeFile(join(project, 'script.bun.mjs'), SCRIPT.replace('PKG', 'avatar-video'));
  await writeFile(join(project, 'script.deno.mjs'), SCRIPT.replace('PKG', 'npm:avatar-video'));
  await writeFile(join(project, 'video.test.mjs'), BUN_TEST);
  await writeFile(join(project, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual' }));
  // Longer than the 60 s the mock (and the client's local limits) take in one job.
  await writeSpeechWav(join(project, 'long.wav'), 75);
}, 300_000);

/** The environment of a user with the mock's address and key, and nothing of ours. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...extra };
  for (const name of Object.keys(env)) if (/^(AVATAR_VIDEO_|npm_)/i.test(name) && !(name in extra)) delete env[name];
  return env;
}

/** A forward proxy on loopback (plain-http targets), recording each request it passes on. */
async function forwardProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const target = new URL(request.url ?? '');
    const options = { host: target.hostname, port: target.port, path: target.pathname + target.search, method: request.method };
    const upstream = httpRequest({ ...options, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}`, seen, close };
}

/** How each runtime runs a script of the project and the package's command. */
const COMMANDS: Record<Runtime, { script: string[]; cli: string[] }> = {
  bun: { script: ['script.bun.mjs'], cli: ['node_modules/avatar-video/dist/cli.js'] },
  deno: { script: ['run', '-A', 'script.deno.mjs'], cli: ['run', '-A', 'npm:avatar-video'] },
};

describe.each(['bun', 'deno'] as const)('%s', (name) => {
  let binary: RuntimeBinary;
  beforeAll(async () => {
    binary = await runtimeBinary(name);
  }, 300_000);

  /** The runtime's path; a missing runtime skips the test, or under CI fails it. */
  const runtime = (context: TestContext) => usable(context, binary).path;

  const run = (path: string, args: string[], env: Record<string, string> = {}) =>
    finished(spawn(path, args, { cwd: project, env: userEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));

  it('runs a script: generate to a file, and generateLong of 75 s of speech in segments', async (context) => {
    const path = runtime(context);
    const mock = await startMockServer({ processingMs: 50 });
    closers.push(mock.close);
    const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL };
    const result = await run(path, [...COMMANDS[name].script, media, join(project, 'long.wav'), project], env);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const said = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { short: string; long: string; segments: number };
    expect(said.segments).toBeGreaterThanOrEqual(2);
    for (const file of [said.short, said.long]) expect((await readFile(file)).toString('latin1', 4, 8)).toBe('ftyp');
    const creates = mock.requests.filter((r) => r.method === 'POST');
    expect(creates).toHaveLength(1 + said.segments);
  }, 120_000);

  it('runs the CLI: `mock`, then `generate` against it', async (context) => {
    const path = runtime(context);
    const child = spawn(path, [...COMMANDS[name].cli, 'mock'], { cwd: project, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = finished(child);
    closers.push(async () => {
      child.kill('SIGINT');
      await ended;
    });
    const exports = await new Promise<Record<string, string>>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk;
        const lines = [...out.matchAll(/^export (AVATAR_VIDEO_\w+)=(\S+)$/gm)];
        if (lines.length === 2) resolve(Object.fromEntries(lines.map((line) => [line[1], line[2]])));
      });
      void ended.then((result) => reject(new Error(`mock ended (${result.code}): ${result.stderr}`)));
    });
    const output = join(project, `cli-${name}.mp4`);
    const args = ['generate', '--audio', join(media, 'speech.wav'), '--image', join(media, 'portrait.png'), '--output', output];
    const result = await run(path, [...COMMANDS[name].cli, ...args], exports);
    expect(result.stdout).toMatch(/saved .*cli-/);
    expect(result.code).toBe(0);
    expect((await readFile(output)).toString('latin1', 4, 8)).toBe('ftyp');
  }, 120_000);

  it.runIf(name === 'bun')(
    "runs the CLI through a proxy (`--proxy`; NO_PROXY by undici's rule) without undici's dispatcher",
    async (context) => {
      const path = runtime(context);
      const mock = await startMockServer({ processingMs: 50 });
      const proxy = await forwardProxy();
      closers.push(mock.close, proxy.close);
      const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL };
      const through = await run(path, [...COMMANDS.bun.cli, 'list', '--proxy', proxy.url], env);
      expect(through.stderr).toBe('');
      expect(through.code).toBe(0);
      expect(proxy.seen).toEqual([`GET ${mock.baseURL}/v1/videos?limit=20`]);
      const exempt = await run(path, [...COMMANDS.bun.cli, 'list', '--proxy', proxy.url], {
        ...env,
        NO_PROXY: new URL(mock.baseURL).hostname,
      });
      expect(exempt.code).toBe(0);
      expect(proxy.seen).toHaveLength(1);
      expect(mock.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    },
    120_000,
  );

  it.runIf(name === 'bun')(
    'runs a test file of the project under `bun test` against avatar-video/testing',
    async (context) => {
      const path = runtime(context);
      const result = await run(path, ['test', './video.test.mjs']);
      expect(`${result.stdout}${result.stderr}`).toMatch(/\b1 pass\b/);
      expect(`${result.stdout}${result.stderr}`).toMatch(/\b0 fail\b/);
      expect(result.code).toBe(0);
    },
    120_000,
  );
});
