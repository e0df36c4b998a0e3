/**
 * What installing the package gives a user: the library's dependencies and nothing of the command's (commander,
 * cli-progress and csv-parse are bundled into dist/cli.js), the `avatar-video` command working from a folder that
 * holds only those dependencies, the bundled packages' licenses, and no source maps.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledPackages, NOTICES, notices } from '../../scripts/third-party-notices.js';
import { builtPackage } from '../helpers/built.js';
import { spawnCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir } = await builtPackage();
const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const closers = useCleanup();
/** An app outside the repository whose node_modules holds the package and its dependencies, nothing else. */
let installed: string;

beforeAll(async () => {
  const app = await mkdtemp(join(tmpdir(), 'avatar-video-install-'));
  closers.push(() => rm(app, { recursive: true, force: true }));
  installed = join(app, 'node_modules', 'avatar-video');
  await cp(dir, installed, { recursive: true });
  // The dependencies as npm would install them (their own dependencies resolve from where they really are).
  for (const name of Object.keys(manifest.dependencies)) {
    await mkdir(dirname(join(app, 'node_modules', name)), { recursive: true });
    await symlink(join(root, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
});

describe('installing avatar-video', () => {
  it('installs the library’s dependencies only: none of the command’s', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['form-data-encoder', 'formdata-node', 'mediabunny', 'undici', 'zod']);
  });

  it('the command runs where only the library’s dependencies are installed', async () => {
    // The premise: from the installed package, the command's dependencies are nowhere to be found.
    const resolveFromPackage = createRequire(join(installed, 'package.json')).resolve;
    for (const name of ['commander', 'cli-progress', 'csv-parse']) expect(() => resolveFromPackage(name)).toThrow(/Cannot find module/);
    const bin = join(installed, manifest.bin['avatar-video'] ?? 'missing bin entry');
    const version = await spawnCli(bin, ['--version'], { cwd: dirname(installed) });
    expect(version).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
    const api = await rawServer((_req, res) => json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 })));
    closers.push(api.close);
    const env = { AVATAR_VIDEO_API_KEY: 'sk-install-1234', AVATAR_VIDEO_BASE_URL: api.url };
    const got = await spawnCli(bin, ['--json', 'get', 'vid_1'], { cwd: dirname(installed), env });
    expect(got.code).toBe(0);
    expect(got.json()).toMatchObject({ id: 'vid_1', status: 'COMPLETE' });
  });

  it(`ships ${NOTICES} with the license of every package bundled into dist`, async () => {
    const bundled = await bundledPackages(join(dir, 'dist'));
    expect([...bundled.keys()]).toEqual(expect.arrayContaining(['cli-progress', 'commander', 'csv-parse']));
    const expected = await notices(join(dir, 'dist'));
    const shipped = await readFile(join(root, NOTICES), 'utf8');
    expect(shipped, `${NOTICES} is out of date: run \`npm run build && npx tsx scripts/third-party-notices.ts\``).toBe(expected);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
    const [pack] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    const outsideDist = pack.files.map((file) => file.path).filter((path) => !path.startsWith('dist/'));
    expect(outsideDist.sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', NOTICES, 'package.json']);
  });

  it('ships no source maps: they could point only at sources the package does not hold', async () => {
    const files = await readdir(join(dir, 'dist'), { recursive: true });
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.c?js$/.test(name))) {
      expect(await readFile(join(dir, 'dist', file), 'utf8')).not.toMatch(/sourceMappingURL/);
    }
  });
});
