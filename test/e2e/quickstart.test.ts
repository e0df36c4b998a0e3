/**
 * A user's first hour, from the packed package in projects made by `npm init -y`: `npx avatar-video demo` makes a
 * real MP4 with no key, and the README's Quickstart code, as pasted, makes one against the `avatar-video mock` the
 * README says to start.
 */
import { spawn } from 'node:child_process';
import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { summarizeMp4 } from '../helpers/mp4.js';
import { blocksUnder, type ReadmeBlock } from '../helpers/readme.js';
import { finished } from '../helpers/system-command.js';
import { userProject } from '../helpers/user-project.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir, tarball } = await builtPackage();

/** A project made by `npm init -y` with the packed package installed by npm, as a user installs it. */
async function freshProject(closers: Parameters<typeof userProject>[3]): Promise<string> {
  const project = await userProject('avatar-video-fresh-', tarball, [], closers);
  const failed = project.installs.find((install) => install.code !== 0);
  if (failed) throw new Error(`npm install ${failed.args.join(' ')} failed:\n${failed.stderr}`);
  return project.dir;
}
const closers = useCleanup();

/** The environment of a user who has no key, no address, and did not start us through npm. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of Object.keys(env)) {
    if (/^(AVATAR_VIDEO_|npm_)/i.test(name) && !(name in extra)) delete env[name];
  }
  // npx finds the command in node_modules/.bin; offline, it could never fetch another copy instead.
  env.npm_config_offline = 'true';
  return env;
}

/** The first ```js block of the README's Quickstart section, as a user copies it. */
const quickstartCode = async () => (blocksUnder('## Quickstart', ['js'])[0] as ReadmeBlock).code;

/** `avatar-video mock` started in `project` as a user starts it; the base URL and key from its two export lines. */
async function startMockCommand(project: string): Promise<Record<string, string>> {
  const child = spawn(process.execPath, [join(project, 'node_modules/.bin/avatar-video'), 'mock'], {
    cwd: project,
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = finished(child);
  closers.push(async () => {
    child.kill('SIGINT');
    expect((await ended).code).toBe(0);
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', () => resolve());
    child.on('close', () => reject(new Error(`avatar-video mock ended: ${stdout}`)));
  });
  return Object.fromEntries([...stdout.matchAll(/^export (AVATAR_VIDEO_\w+)=(\S+)$/gm)].map(([, name, value]) => [name, value]));
}

describe('npx avatar-video demo', () => {
  it('ships small sample media', async () => {
    const samples = join(dir, 'samples');
    expect((await readdir(samples)).sort()).toEqual(['portrait.png', 'speech.wav']);
    const sizes = await Promise.all(['portrait.png', 'speech.wav'].map(async (name) => (await stat(join(samples, name))).size));
    expect(sizes.reduce((sum, size) => sum + size)).toBeLessThan(150_000);
  });

  it('makes a real MP4 in a fresh project with no key, and says what to do next, naming npx', { timeout: 60_000 }, async () => {
    const project = await freshProject(closers);
    const shell = process.platform === 'win32';
    const result = await finished(spawn('npx', ['avatar-video', 'demo'], { cwd: project, env: userEnv(), shell }));
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const saved = join(project, 'avatar-video-demo.mp4');
    expect(result.stdout).toContain(`saved ${saved} (`);
    const mp4 = await summarizeMp4(saved);
    expect(mp4.durationSeconds).toBeCloseTo(4.2, 0);
    expect([mp4.width, mp4.height]).toEqual([720, 1280]);
    expect(result.stderr).toContain('export AVATAR_VIDEO_API_KEY=<your key>');
    // npx started it (npm_command=exec): the suggested command is one the user's shell finds.
    expect(result.stderr).toMatch(/^ {2}3\. npx avatar-video generate --audio /m);
  });
});

describe('the README Quickstart, as pasted', () => {
  it('runs as app.mjs with node, and as app.ts with tsx, in an npm init -y project, against `avatar-video mock`', {
    timeout: 90_000,
  }, async () => {
    const project = await freshProject(closers);
    // npm 11 writes "type": "commonjs"; older npm writes none, which means the same.
    expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    const code = await quickstartCode();
    await writeFile(join(project, 'app.mjs'), code);
    await writeFile(join(project, 'app.ts'), code);
    // As the Quickstart says: the samples copied beside the code.
    await cp(join(project, 'node_modules/avatar-video/samples'), project, { recursive: true });
    const mock = await startMockCommand(project);
    expect(Object.keys(mock).sort()).toEqual(['AVATAR_VIDEO_API_KEY', 'AVATAR_VIDEO_BASE_URL']);
    const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
    for (const command of [['app.mjs'], [tsx, 'app.ts']]) {
      const result = await finished(spawn(process.execPath, command, { cwd: project, env: userEnv(mock) }));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^PROCESSING \d+%$/m);
      expect(result.stdout).toContain(`saved ${join(project, 'out.mp4')} (`);
      const mp4 = await summarizeMp4(join(project, 'out.mp4'));
      expect(mp4.durationSeconds).toBeCloseTo(4.2, 0);
    }
  });
});
