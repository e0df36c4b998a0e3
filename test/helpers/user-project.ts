/**
 * A user's project as npm makes it: `npm init -y` in a folder outside the repository (so nothing resolves from the
 * repository's node_modules), msw installed first when asked, then the packed tarball. And the test runners of the
 * repository (Jest, vitest) run in it under a chosen node, reading their JSON report.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { npmInstall } from './npm-install.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

export interface UserProject {
  dir: string;
  /** Each npm install in the order run, with its exit code and stderr: a refused one stops the set-up there. */
  installs: Array<{ args: string[]; code: number; stderr: string }>;
}

/**
 * A fresh project with `first` installed (msw@3, say), then the tarball, each by its own `npm install`, as a user
 * adds avatar-video to a project that has its own packages. `closers` removes it.
 */
export async function userProject(
  prefix: string,
  tarball: string,
  first: string[],
  closers: { push(close: () => Promise<void>): void },
): Promise<UserProject> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  await run('npm', ['init', '-y'], { cwd: dir });
  const installs: UserProject['installs'] = [];
  for (const args of [...(first.length ? [first] : []), [tarball]]) {
    const { code, stderr } = await npmInstall([...NPM_QUIET, ...args], { cwd: dir, timeout: 300_000 });
    installs.push({ args, code, stderr });
    if (code !== 0) break;
  }
  return { dir, installs };
}

export interface TestRun {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ message: string; assertionResults: Array<{ title: string; failureMessages: string[] }> }>;
  /** The runner's console output: the tests' own logs and warnings. */
  stderr: string;
}

export type Runner = 'jest-cjs' | 'jest-esm' | 'vitest';

/**
 * One runner in `project` under `node`: Jest in its default (CommonJS) mode on `video.test.cjs`, Jest with
 * `--experimental-vm-modules` on `video.test.mjs`, or vitest (with the project's vitest.config.mjs) on the latter.
 * Each run keeps its cache in a folder of its own, so runs in one project may go at once.
 */
export function runTests(node: string, project: string, runner: Runner, cacheName: string): Promise<TestRun> {
  const cache = join(project, '.cache', cacheName);
  if (runner === 'vitest') {
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    // Not this run's environment: the inner vitest would take itself for one of this run's workers.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_ENV'));
    return report(node, project, [vitest, 'run', '--reporter=json', 'video.test.mjs'], { ...env, VITE_CACHE_DIR: cache });
  }
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const [flags, file] = runner === 'jest-cjs' ? [[], 'video.test.cjs'] : [['--experimental-vm-modules'], 'video.test.mjs'];
  return report(node, project, [...flags, jest, '--ci', '--no-watchman', '--cacheDirectory', cache, '--json', file], process.env);
}

/** Run `node` with `args` in `project`; its JSON report (Jest's, or vitest's that has the same shape) on stdout. */
async function report(node: string, project: string, args: string[], env: NodeJS.ProcessEnv): Promise<TestRun> {
  const { stdout, stderr } = await run(node, args, { cwd: project, env, timeout: 240_000 }).catch(
    // A failing test exits 1: its report is what the test reads.
    (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
  if (!stdout.trim()) throw new Error(`No test report:\n${stderr}`);
  return { ...(JSON.parse(stdout) as Omit<TestRun, 'stderr'>), stderr };
}

/** Every failure message of a run, empty when all passed. */
export function failures(result: TestRun): string[] {
  return result.testResults.flatMap((file) => [file.message, ...file.assertionResults.flatMap((t) => t.failureMessages)]).filter(Boolean);
}

/** `task` over `items`, at most `width` at once; results in input order. A failing task fails the whole. */
export async function atMost<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index] as T);
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}
