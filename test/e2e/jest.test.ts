/**
 * `avatar-video/testing` in a user's Jest project: real Jest test files (CommonJS requiring the package, ESM
 * importing it) run by the Jest of this repository, against the packed package (test/setup/build.ts), with the
 * lowest and the latest msw of the peer range. And in one process that loads both formats, mediabunny once.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const media = join(root, 'examples/media');
const { dir: pkg } = await builtPackage();
const closers = useCleanup();
/**
 * msw 2.11+ (its ESM-only dependencies) loads under Jest's CommonJS mode only where Jest can require ESM: Node 24.9+
 * (vm's SourceTextModule with hasAsyncGraph), which Jest sees only when node runs with --experimental-vm-modules.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const jestRequiresESM = major > 24 || (major === 24 && minor >= 9);
const TWICE = 'Mediabunny was loaded twice';

/** One test body for both formats: a create with an image, one with a video reference, and a generateLong. */
const BODY = `
const media = ${JSON.stringify(media)};
let mock, client, dir;
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 100 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'avatar-jest-'));
});
afterAll(async () => {
  await client?.close();
  await mock?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function made(visual) {
  const video = await client.videos.create({ audio_reference: join(media, 'speech.wav'), ...visual });
  const done = await client.videos.waitForCompletion(video.id);
  const saved = await client.videos.download(done.id, join(dir, done.id + '.mp4'));
  const bytes = await readFile(saved.path);
  expect(done.status).toBe('COMPLETE');
  expect(saved.bytes).toBe(bytes.length);
  expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
  // The mock's renderer marks each output with its job.
  expect(bytes.toString('latin1')).toContain('avatar-video-mock; job=' + done.id);
}

test('create, wait and download with an image reference', () => made({ image_reference: join(media, 'portrait.png') }));
test('create, wait and download with a video reference', () => made({ video_reference: join(media, 'presenter.mp4') }));
test('generateLong joins its segments', async () => {
  const output = join(dir, 'long.mp4');
  const result = await client.videos.generateLong(
    { audio_reference: join(media, 'speech.wav'), image_reference: join(media, 'portrait.png') },
    { output, maxSegmentSeconds: 5 },
  );
  expect(result.segments.length).toBe(2);
  expect(result.path).toBe(output);
  expect((await readFile(output)).toString('latin1', 4, 8)).toBe('ftyp');
});
`;

const CJS = `const AvatarVideo = require('avatar-video');
const { startMockServer } = require('avatar-video/testing');
const { mkdtemp, readFile, rm } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
${BODY}`;

const ESM = `import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
${BODY}`;

/** No avatar-video at all: what msw itself does under the same Jest. */
const MSW_ALONE = `test('msw loads', () => {
  expect(typeof require('msw').http.get).toBe('function');
});
`;

/**
 * A Jest project in the consumer folder, with node_modules/msw linked to `msw` (a folder of the repository's
 * node_modules). The package is a copy of the installed one rather than a link: node and Jest resolve msw from a
 * package's real path, which must be inside this project to find this project's msw.
 */
async function jestProject(msw: 'msw' | 'msw-lowest'): Promise<string> {
  const project = await consumerFolder(`jest-${msw}-`, closers);
  await mkdir(join(project, 'node_modules'));
  await cp(pkg, join(project, 'node_modules', 'avatar-video'), { recursive: true });
  await symlink(join(root, 'node_modules', msw), join(project, 'node_modules', 'msw'), 'junction');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'jest-user', private: true }));
  // What the README's Jest section says: no transform (the package needs none); the cache kept inside the project.
  await writeFile(join(project, 'jest.config.json'), JSON.stringify({ transform: {}, cacheDirectory: '<rootDir>/.jest-cache' }));
  await writeFile(join(project, 'video.test.cjs'), CJS);
  await writeFile(join(project, 'video.test.mjs'), ESM);
  await writeFile(join(project, 'msw-alone.test.cjs'), MSW_ALONE);
  return project;
}

interface TestRun {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ message: string; assertionResults: Array<{ title: string; failureMessages: string[] }> }>;
  /** The runner's console output: the tests' own logs and warnings. */
  stderr: string;
}

/**
 * Jest on one test file of `project`: `cjs` plain, `esm` and `cjs-vm` (CommonJS files, able to require ESM on Node
 * 24.9+) with `--experimental-vm-modules`.
 */
function runJest(project: string, mode: 'cjs' | 'esm' | 'cjs-vm', file: string): Promise<TestRun> {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const flags = mode === 'cjs' ? [] : ['--experimental-vm-modules'];
  return report(project, [...flags, jest, '--ci', '--no-watchman', '--json', file]);
}

/** Run node with `args` in `project`; its JSON report (Jest's, or vitest's that has the same shape) on stdout. */
async function report(project: string, args: string[], env = process.env): Promise<TestRun> {
  const { stdout, stderr } = await run(process.execPath, args, { cwd: project, env }).catch(
    // A failing test exits 1: its report is what the test reads.
    (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
  if (!stdout.trim()) throw new Error(`No test report:\n${stderr}`);
  return { ...(JSON.parse(stdout) as Omit<TestRun, 'stderr'>), stderr };
}

function expectAllPassed(result: TestRun, tests: number): void {
  const failures = result.testResults.flatMap((file) => [file.message, ...file.assertionResults.flatMap((t) => t.failureMessages)]);
  expect(failures.filter(Boolean)).toEqual([]);
  expect(result.numPassedTests).toBe(tests);
  expect(result.stderr).not.toContain(TWICE);
}

/** The "Must use import to load ES Module: <file>" line of the first failure in `result`. */
function requireESMFailure(result: TestRun): string | undefined {
  const messages = result.testResults.flatMap((file) => [file.message, ...file.assertionResults.flatMap((t) => t.failureMessages)]);
  return messages.join('\n').match(/Must use import to load ES Module: \S+/)?.[0];
}

describe('Jest', () => {
  it('the CommonJS builds hold no dynamic import(), which Jest refuses in CommonJS mode', async () => {
    for (const file of ['index.cjs', 'testing/index.cjs']) {
      expect(await readFile(join(pkg, 'dist', file), 'utf8'), file).not.toMatch(/\bimport\(/);
    }
  });

  it('CommonJS mode, msw 2.9 (the lowest of the peer range): require, create, wait, download', async () => {
    const project = await jestProject('msw-lowest');
    expectAllPassed(await runJest(project, 'cjs', 'video.test.cjs'), 3);
  });

  it.each(['msw', 'msw-lowest'] as const)('ESM mode (--experimental-vm-modules), %s: import, create, wait, download', async (msw) => {
    const project = await jestProject(msw);
    expectAllPassed(await runJest(project, 'esm', 'video.test.mjs'), 3);
  });

  it.runIf(jestRequiresESM)(
    'CommonJS test files, the latest msw, on Node 24.9+ with --experimental-vm-modules (Jest requires ESM)',
    async () => {
      const project = await jestProject('msw');
      expectAllPassed(await runJest(project, 'cjs-vm', 'video.test.cjs'), 3);
    },
  );

  it.skipIf(jestRequiresESM)('CommonJS mode, the latest msw, before Node 24.9: fails as msw alone does under Jest', async () => {
    const project = await jestProject('msw');
    const ours = await runJest(project, 'cjs', 'video.test.cjs');
    const alone = await runJest(project, 'cjs', 'msw-alone.test.cjs');
    expect(alone.numFailedTests).toBe(1);
    expect(ours.numPassedTests).toBe(0);
    // The same file of msw's dependencies refused, with or without avatar-video.
    expect(requireESMFailure(alone)).toMatch(/node_modules/);
    expect(requireESMFailure(ours)).toBe(requireESMFailure(alone));
  });
});

describe('vitest', () => {
  it('the same ESM test file, run by vitest with its globals', async () => {
    const project = await jestProject('msw');
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    // Not this run's environment: the inner vitest would take itself for one of this run's workers.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_ENV'));
    // A config of its own: vitest would otherwise find this repository's, above the project.
    await writeFile(join(project, 'vitest.config.mjs'), 'export default { test: { globals: true } };');
    expectAllPassed(await report(project, [vitest, 'run', '--reporter=json', 'video.test.mjs'], env), 3);
  });
});

describe('mediabunny', () => {
  it('is loaded once, the package’s own copy, in a process that loads index.cjs, testing/index.cjs and media/index.js, all using it', async () => {
    const work = await consumerFolder('mediabunny-', closers);
    await writeFile(
      join(work, 'both.mjs'),
      `import { createRequire } from 'node:module';
import { join } from 'node:path';
const require = createRequire(import.meta.url);
const AvatarVideo = require('avatar-video');
const { startMockServer } = require('avatar-video/testing');
const esm = await import('avatar-video/media');
const media = ${JSON.stringify(media)};
const mock = await startMockServer({ processingMs: 100 });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
// The CommonJS SDK probes the video reference, the mock renders the output, the ESM media entry probes it.
const video = await client.videos.createAndWait({ audio_reference: join(media, 'speech.wav'), video_reference: join(media, 'presenter.mp4') });
const saved = await client.videos.download(video.id, join(${JSON.stringify(work)}, 'out.mp4'));
const probed = await esm.probeMedia(saved.path);
await client.close();
await mock.close();
const loaded = Object.keys(require.cache).filter((file) => /mediabunny/i.test(file));
console.log(JSON.stringify({ status: video.status, kind: probed.kind, format: probed.format, loaded }));
`,
    );
    const { stdout, stderr } = await run(process.execPath, ['both.mjs'], { cwd: work });
    // Not the mediabunny package, which this repository has installed where the consumer would find it too.
    const loaded = [join(pkg, 'dist/vendor/mediabunny.cjs')];
    expect(JSON.parse(stdout)).toEqual({ status: 'COMPLETE', kind: 'video', format: 'mp4', loaded });
    expect(stderr).not.toContain(TWICE);
  });
});
