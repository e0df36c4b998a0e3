import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Tests of the package as built and installed: they share one build, made by the project's globalSetup. */
const E2E = 'test/e2e/**/*.test.ts';
/** Tests of the web entry from its sources, with `#platform` as the web build resolves it (package.json's `imports`). */
const WEB = 'test/web/**/*.test.ts';
/** Files that replace a module (vi.mock): the replacement reaches only modules loaded after it, so a fresh graph. */
const MOCKING = readdirSync(`${root}test`, { recursive: true, encoding: 'utf8' })
  .map((file) => `test/${file.replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.test.ts') && /\bvi\.(mock|doMock)\(/.test(readFileSync(`${root}${file}`, 'utf8')));

export default defineConfig({
  // src/bullmq imports the main entry by the package's name, as the build leaves it (tsup.config.ts); here that name means the sources.
  resolve: { alias: [{ find: /^avatar-video$/, replacement: `${root}src/index.ts` }] },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One worker per core, not vitest's default of one fewer: much of the suite waits on sockets and child processes.
    maxWorkers: Math.max(2, availableParallelism()),
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/cli/**'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
    projects: [
      // The sources, in this process. Files share their worker's modules: loading them afresh for each file took
      // more CPU than the tests themselves. So a test file must leave no global state behind (timers, env, listeners).
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [E2E, WEB, ...MOCKING], isolate: false } },
      // Only `#platform` changes: the other packages keep their Node builds (the mock, the test helpers).
      {
        extends: true,
        resolve: { alias: [{ find: /^#platform$/, replacement: `${root}src/web/platform.ts` }] },
        test: { name: 'web', include: [WEB] },
      },
      { extends: true, test: { name: 'unit-isolated', include: MOCKING } },
      // The build starts with the run (when the run includes one of these files) and goes on while the unit tests
      // run; these come after them (a later group), so that no worker sits waiting for it.
      { extends: true, test: { name: 'e2e', include: [E2E], globalSetup: ['test/setup/build.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
