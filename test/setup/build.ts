/**
 * globalSetup of the e2e project: builds the package once per run, as `npm run build` does (tsup, then the
 * CommonJS step), and installs it as node_modules/avatar-video of a consumer folder that the e2e tests share.
 * The folder is made afresh for every run (and every rerun in watch mode) and removed after: a test never meets
 * an old build, nor dist/, which a `npm run build` may be rewriting at the same time.
 *
 * The build goes on while the unit tests run (the e2e project comes after them, vitest.config.ts): it ends by
 * writing BUILD_RESULT into the folder, which test/helpers/built.ts waits for.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { makeCommonJSEntry } from '../../scripts/commonjs-entry.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder whose node_modules/avatar-video is this run's build; see test/helpers/built.ts. */
    consumerDir: string;
  }
}

/** `{ ok: true }` or `{ ok: false, error }`, written in the consumer folder once the build has ended. */
export const BUILD_RESULT = 'build-result.json';

const root = fileURLToPath(new URL('../..', import.meta.url));

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
    () => ({ ok: true }),
    (error: { stderr?: string }) => ({ ok: false, error: error.stderr || String(error) }),
  );
  await writeFile(join(consumer, `${BUILD_RESULT}.tmp`), JSON.stringify(result));
  await rename(join(consumer, `${BUILD_RESULT}.tmp`), join(consumer, BUILD_RESULT));
}

async function build(consumer: string): Promise<void> {
  const pkg = join(consumer, 'node_modules', 'avatar-video');
  await rm(consumer, { recursive: true, force: true });
  await mkdir(pkg, { recursive: true });
  // A package of its own: without it, node would resolve 'avatar-video' to this repository (self-reference).
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'avatar-video-consumer', private: true }));
  await copyFile(join(root, 'package.json'), join(pkg, 'package.json'));
  const tsup = join(root, 'node_modules/tsup/dist/cli-default.js');
  await promisify(execFile)(process.execPath, [tsup, '--out-dir', join(pkg, 'dist'), '--silent'], { cwd: root });
  await makeCommonJSEntry(join(pkg, 'dist'));
}
