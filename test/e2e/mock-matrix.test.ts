/**
 * `avatar-video/testing` in users' projects, made by `npm init -y` outside the repository with the packed tarball:
 * Jest in its default (CommonJS) mode and in ESM mode, and vitest, each in a project without msw, with msw 2 and with
 * msw 3, on Node 20, 22 and 24. The mock bundles the msw it uses, so it loads in all of them and `npm install`
 * beside msw 3 never meets a peer range. The whole matrix runs from whichever node runs this file (.ci/run runs it
 * once).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { type NodeBinary, nodeBinary } from '../helpers/node-versions.js';
import { atMost, failures, type Runner, runTests, type TestRun, type UserProject, userProject } from '../helpers/user-project.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const media = join(root, 'examples/media');
const { tarball } = await builtPackage();
const closers = useCleanup();
const TWICE = 'Mediabunny was loaded twice';
/** Under CI a Node version that cannot be had fails its tests; elsewhere they are skipped, saying why. */
const CI = process.env.CI === 'true';

const NODES = [20, 22, 24] as const;
/** What each project installs before avatar-video. */
const MSW = { 'no msw': [], 'msw 2': ['-D', 'msw@2'], 'msw 3': ['-D', 'msw@3'] } as const;
type Msw = keyof typeof MSW;
const MSWS = Object.keys(MSW) as Msw[];
const RUNNERS: Runner[] = ['jest-cjs', 'jest-esm', 'vitest'];
/** Runner processes at once: each is a node with Jest or vitest, two mock servers and a client. */
const WIDTH = 3;

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

let nodes: Map<number, NodeBinary>;
let projects: Map<Msw, UserProject>;
/** Each run of the matrix by `key()`: its report, or what kept it from giving one. */
let results: Map<string, TestRun | Error>;
const key = (node: number, msw: Msw, runner: Runner) => `${node} ${msw} ${runner}`;

/** A project with `msw` installed first, then the tarball, and the test files (with the README's Jest config: no transform). */
async function makeProject(msw: Msw): Promise<UserProject> {
  const project = await userProject(`avatar-video-${msw.replace(' ', '')}-`, tarball, [...MSW[msw]], closers);
  await writeFile(join(project.dir, 'jest.config.json'), JSON.stringify({ transform: {} }));
  await writeFile(
    join(project.dir, 'vitest.config.mjs'),
    'export default { cacheDir: process.env.VITE_CACHE_DIR, test: { globals: true } };',
  );
  await writeFile(join(project.dir, 'video.test.cjs'), CJS);
  await writeFile(join(project.dir, 'video.test.mjs'), ESM);
  return project;
}

beforeAll(async () => {
  const [found, made] = await Promise.all([
    Promise.all(NODES.map(async (major) => [major, await nodeBinary(major)] as const)),
    Promise.all(MSWS.map(async (msw) => [msw, await makeProject(msw)] as const)),
  ]);
  nodes = new Map(found);
  projects = new Map(made);
  const runs = NODES.flatMap((node) => MSWS.flatMap((msw) => RUNNERS.map((runner) => ({ node, msw, runner }))));
  const ran = await atMost(runs, WIDTH, async ({ node, msw, runner }) => {
    const binary = nodes.get(node);
    const project = projects.get(msw);
    const installed = project?.installs.every((install) => install.code === 0);
    const outcome =
      !binary || 'missing' in binary || !project || !installed
        ? new Error('not run: no node or no installed project')
        : await runTests(binary.path, project.dir, runner, `${node}-${runner}`).catch((error: Error) => error);
    return [key(node, msw, runner), outcome] as const;
  });
  results = new Map(ran);
}, 20 * 60_000);

describe('npm install of the tarball in a fresh project', () => {
  it.each(MSWS)('%s: installs, with no peer dependency on msw', async (msw) => {
    const project = projects.get(msw);
    // npm's stderr rides with a failed install, so the diff says why it failed.
    const said = ({ args, code, stderr }: { args: string[]; code: number; stderr: string }) => ({
      args,
      code,
      refused: /ERESOLVE/.test(stderr),
      ...(code === 0 ? {} : { stderr: stderr.slice(-2_000) }),
    });
    expect(project?.installs.map(said)).toEqual(
      [...(MSW[msw].length ? [[...MSW[msw]]] : []), [tarball]].map((args) => ({ args, code: 0, refused: false })),
    );
    const dir = project?.dir ?? '';
    const manifest = JSON.parse(await readFile(join(dir, 'node_modules/avatar-video/package.json'), 'utf8'));
    expect(manifest.peerDependencies?.msw).toBeUndefined();
    // The premise: the project's own msw, of the major asked for, or none anywhere the project resolves from.
    const resolveMsw = () => createRequire(join(dir, 'package.json')).resolve('msw/package.json');
    if (msw === 'no msw') expect(resolveMsw).toThrow(/Cannot find module/);
    else expect(JSON.parse(await readFile(resolveMsw(), 'utf8')).version).toMatch(new RegExp(`^${msw.slice(-1)}\\.`));
  });
});

describe.each(NODES)('Node %i', (major) => {
  it.for(RUNNERS.flatMap((runner) => MSWS.map((msw) => [runner, msw] as const)))(
    '%s, %s: require or import the mock, create, wait, download, generateLong',
    ([runner, msw], context) => {
      const binary = nodes.get(major);
      if (!binary || 'missing' in binary) {
        const reason = binary && 'missing' in binary ? binary.missing : `no Node ${major}`;
        if (CI) throw new Error(`${reason} (CI installs Node 22 and 24 in .ci/run and sets AVATAR_VIDEO_NODE22/24)`);
        context.skip(reason);
        return;
      }
      const result = results.get(key(major, msw, runner));
      if (result instanceof Error) throw result;
      expect(failures(result as TestRun)).toEqual([]);
      expect(result?.numPassedTests).toBe(3);
      expect(result?.stderr).not.toContain(TWICE);
    },
  );
});
