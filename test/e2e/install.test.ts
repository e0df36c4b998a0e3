/**
 * What installing the package gives a user: the library's dependencies and nothing of the command's (commander,
 * cli-progress and csv-parse are bundled into dist/cli.js), nor msw (the mock's parts of it are bundled into
 * dist/testing) nor mediabunny (its own build ships in dist/vendor), the
 * `avatar-video` command and the library working from a folder that holds only those dependencies, the bundled
 * packages' licenses, and no source maps.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
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
const media = join(root, 'examples/media');
/** An app outside the repository whose node_modules holds the package and its dependencies, nothing else (no msw). */
let installed: string;

/**
 * An app using mediabunny through the package, the SDK in the format given, the mock and a probe in the other: the
 * SDK probes the video reference, the mock renders the output, the probe reads it. Prints the files of mediabunny
 * the process loaded.
 */
const MEDIA_SCRIPT = `import { createRequire } from 'node:module';
import { join } from 'node:path';
const require = createRequire(import.meta.url);
const [sdkFormat, media] = process.argv.slice(2);
const load = (specifier, format) => (format === 'cjs' ? require(specifier) : import(specifier));
const other = sdkFormat === 'cjs' ? 'esm' : 'cjs';
const { AvatarVideo } = await load('avatar-video', sdkFormat);
const { startMockServer } = await load('avatar-video/testing', other);
const { probeMedia } = await load('avatar-video/media', other);
const mock = await startMockServer({ processingMs: 100 });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
const video = await client.videos.createAndWait({ audio_reference: join(media, 'speech.wav'), video_reference: join(media, 'presenter.mp4') });
const saved = await client.videos.download(video.id, 'out-' + sdkFormat + '.mp4');
const probed = await probeMedia(saved.path);
await client.close();
await mock.close();
const loaded = Object.keys(require.cache).filter((file) => /mediabunny/i.test(file));
console.log(JSON.stringify({ status: video.status, kind: probed.kind, loaded }));
`;

beforeAll(async () => {
  const app = await mkdtemp(join(tmpdir(), 'avatar-video-install-'));
  closers.push(() => rm(app, { recursive: true, force: true }));
  installed = join(app, 'node_modules', 'avatar-video');
  await cp(dir, installed, { recursive: true });
  // The dependencies as npm would install them (their own dependencies resolve from where they really are); no msw,
  // which the mock bundles.
  for (const name of Object.keys(manifest.dependencies)) {
    await mkdir(dirname(join(app, 'node_modules', name)), { recursive: true });
    await symlink(join(root, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
});

describe('installing avatar-video', () => {
  it('installs the library’s dependencies only: none of the command’s', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['form-data-encoder', 'standardwebhooks', 'undici', 'zod']);
  });

  it('ships mediabunny’s Node bundle unmodified, the one copy every entry loads where mediabunny is not installed', async () => {
    // Neither mediabunny nor msw (the mock below bundles the parts of msw it uses) is there to be found.
    for (const name of ['mediabunny', 'msw']) {
      expect(() => createRequire(join(installed, 'package.json')).resolve(name)).toThrow(/Cannot find module/);
    }
    const vendored = join(installed, 'dist/vendor/mediabunny.cjs');
    // What `require('mediabunny')` loads in node, byte for byte.
    expect((await readFile(vendored)).equals(await readFile(createRequire(import.meta.url).resolve('mediabunny')))).toBe(true);
    // The command probes a video reference.
    const bin = join(installed, manifest.bin['avatar-video'] ?? 'missing bin entry');
    const args = ['--json', 'validate', '--audio', join(media, 'speech.wav'), '--video', join(media, 'presenter.mp4')];
    const validated = await spawnCli(bin, args, { cwd: dirname(installed) });
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.json()).toMatchObject({ valid: true, visual: { kind: 'video' } });
    // The library probes and the mock renders, each build of each entry once.
    const app = dirname(dirname(installed));
    await writeFile(join(app, 'media.mjs'), MEDIA_SCRIPT);
    for (const sdkFormat of ['esm', 'cjs']) {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['media.mjs', sdkFormat, media], { cwd: app });
      expect(stderr).not.toContain('Mediabunny was loaded twice');
      expect(JSON.parse(stdout)).toEqual({ status: 'COMPLETE', kind: 'video', loaded: [await realpath(vendored)] });
    }
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
    expect([...bundled.keys()]).toEqual(expect.arrayContaining(['cli-progress', 'commander', 'csv-parse', 'msw']));
    const expected = await notices(join(dir, 'dist'));
    const shipped = await readFile(join(root, NOTICES), 'utf8');
    expect(shipped, `${NOTICES} is out of date: run \`npm run build && npx tsx scripts/third-party-notices.ts\``).toBe(expected);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
    const [pack] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    // samples/ is the demo's own media, made for this project, not a third party's.
    const outsideDist = pack.files.map((file) => file.path).filter((path) => !path.startsWith('dist/'));
    expect(outsideDist.sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      NOTICES,
      'package.json',
      'samples/portrait.png',
      'samples/speech.wav',
    ]);
  });

  it('ships no source maps: they could point only at sources the package does not hold', async () => {
    const files = await readdir(join(dir, 'dist'), { recursive: true });
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.c?js$/.test(name))) {
      expect(await readFile(join(dir, 'dist', file), 'utf8')).not.toMatch(/sourceMappingURL/);
    }
  });
});
