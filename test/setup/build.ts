/**
 * globalSetup of the e2e project: builds the package once per run, as `npm run build` does (tsup, then the
 * CommonJS step, the shared-declarations step and the namespace-types step), packs it with `npm pack` and extracts
 * the tarball as node_modules/avatar-video of a consumer folder that the e2e tests share: they meet exactly the files
 * npm would publish, as an install lays them out.
 * The folder is made afresh for every run (and every rerun in watch mode) and removed after: a test never meets
 * an old build, nor dist/, which a `npm run build` may be rewriting at the same time.
 *
 * The build goes on while the unit tests run (the e2e project comes after them, vitest.config.ts): it ends by
 * writing BUILD_RESULT into the folder, which test/helpers/built.ts waits for.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { makeCommonJSEntry } from '../../scripts/commonjs-entry.js';
import { addNamespaceTypes } from '../../scripts/namespace-types.js';
import { importSharedDeclarations } from '../../scripts/shared-declarations.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder whose node_modules/avatar-video is this run's build; see test/helpers/built.ts. */
    consumerDir: string;
  }
}

/** `{ ok: true, tarball }` or `{ ok: false, error }`, written in the consumer folder once the build has ended. */
export const BUILD_RESULT = 'build-result.json';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export default function setup(project: TestProject): () => Promise<void> {
  // Inside the repository, so the package's own dependencies resolve from its node_modules.
  const consumer = join(root, '.tmp', `test-build-${process.pid}`);
  let finished = buildInto(consumer);
  project.provide('consumerDir', consumer);
  // Watch mode: the sources may have changed. The old result goes before the rerun's tests can read it.
  project.onTestsRerun(async () => {
    await finished;
    await rm(join(consumer, BUILD_RESULT));
    finished = buildInto(consumer);
  });
  return async () => {
    await finished;
    await rm(consumer, { recursive: true, force: true });
  };
}

/** Build into `consumer`, then write BUILD_RESULT there, whole (renamed into place: it is read as soon as it exists). */
async function buildInto(consumer: string): Promise<void> {
  const result = await build(consumer).then(
    (tarball) => ({ ok: true, tarball }),
    (error: { stderr?: string }) => ({ ok: false, error: error.stderr || String(error) }),
  );
  await writeFile(join(consumer, `${BUILD_RESULT}.tmp`), JSON.stringify(result));
  await rename(join(consumer, `${BUILD_RESULT}.tmp`), join(consumer, BUILD_RESULT));
}

/** Build, pack and install into `consumer`; the tarball's path (it stays in `consumer`). */
async function build(consumer: string): Promise<string> {
  const stage = join(consumer, 'package-source');
  await rm(consumer, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  // A package of its own: without it, node would resolve 'avatar-video' to this repository (self-reference).
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'avatar-video-consumer', private: true }));
  await stagePackage(stage);
  const tsup = join(root, 'node_modules/tsup/dist/cli-default.js');
  await run(process.execPath, [tsup, '--out-dir', join(stage, 'dist'), '--silent'], { cwd: root });
  await makeCommonJSEntry(join(stage, 'dist'));
  await importSharedDeclarations(join(stage, 'dist'));
  await addNamespaceTypes(join(stage, 'dist'));
  const tarball = await pack(stage, consumer);
  const pkg = join(consumer, 'node_modules', 'avatar-video');
  await mkdir(pkg, { recursive: true });
  // Every tarball entry is under package/, which npm drops when it installs.
  await run('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1']);
  await rm(stage, { recursive: true, force: true });
  return tarball;
}

/**
 * The package's sources for `npm pack`, without dist/ (built into it next): package.json, what its `files` lists
 * and the README and LICENSE that npm adds on its own. A copy, so that a `npm run build` rewriting the repository's
 * dist/ at the same time cannot mix into the tarball.
 */
async function stagePackage(stage: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files?: string[] };
  const always = (await readdir(root)).filter((name) => /^(readme|licen[cs]e)/i.test(name));
  const listed = (manifest.files ?? []).filter((entry) => !/^\.?\/?dist(\/|$)/.test(entry) && existsSync(join(root, entry)));
  for (const entry of new Set(['package.json', ...always, ...listed])) await cp(join(root, entry), join(stage, entry), { recursive: true });
}

/** `npm pack` of `folder` into `destination`; the tarball's path. Scripts are not run: the build above is the one packed. */
async function pack(folder: string, destination: string): Promise<string> {
  const args = ['pack', folder, '--pack-destination', destination, '--ignore-scripts', '--json'];
  // npm is npm.cmd on Windows, which only a shell runs.
  const { stdout } = await run('npm', args, { cwd: destination, shell: process.platform === 'win32' });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  if (!packed) throw new Error(`npm pack printed no tarball: ${stdout}`);
  return join(destination, packed.filename);
}
