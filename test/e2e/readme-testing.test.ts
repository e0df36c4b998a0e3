/**
 * The README's "Testing your app with the mock" file, as pasted into a project made by `npm init -y` with the packed
 * package: `video.test.mjs` under vitest, Jest (its ESM mode, `{ "transform": {} }`, as "Testing with Jest" says),
 * `bun test` and `deno test -A --no-check`. Jest and Deno take the import line the block writes for them; nothing else changes.
 * Under CI=true a runtime that cannot be had fails its test; elsewhere it is skipped, saying why.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { usable } from '../helpers/npm-tool.js';
import { blocksUnder } from '../helpers/readme.js';
import { type Runtime, type RuntimeBinary, runtimeBinary } from '../helpers/runtimes.js';
import { finished } from '../helpers/system-command.js';
import { failures, runTests, userProject } from '../helpers/user-project.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { tarball } = await builtPackage();
const closers = useCleanup();
const [block] = blocksUnder('## Testing your app with the mock', ['js']);
const code = block?.code ?? '';
/** The three tests the file holds. */
const TESTS = 3;

/** The file for `runner`: the block, its `vitest` import swapped for the line it writes under `// <runner>: `. */
function fileFor(runner: 'Jest' | 'Deno' | 'vitest'): string {
  if (runner === 'vitest') return code;
  const line = new RegExp(`^// ${runner}: (import .*)$`, 'm').exec(code)?.[1];
  if (!line) throw new Error(`the README's Testing block has no "// ${runner}: import ..." line`);
  return code.replace(/^import \{[^}]*\} from 'vitest';$/m, line);
}

let project: string;

beforeAll(async () => {
  const made = await userProject('avatar-video-readme-testing-', tarball, [], closers);
  const failed = made.installs.find((install) => install.code !== 0);
  if (failed) throw new Error(`npm install ${failed.args.join(' ')} failed:\n${failed.stderr}`);
  project = made.dir;
  // As `npm install -D vitest` leaves it (the file imports 'vitest'): the repository's copy.
  await symlink(join(root, 'node_modules/vitest'), join(project, 'node_modules/vitest'), 'dir');
  await writeFile(join(project, 'jest.config.json'), JSON.stringify({ transform: {} }));
  await writeFile(join(project, 'vitest.config.mjs'), 'export default { cacheDir: process.env.VITE_CACHE_DIR };');
}, 300_000);

describe("the README's Testing file, pasted as video.test.mjs", () => {
  it('says how to run it with each: the commands this file runs', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const command of ['`npx vitest run`', '`bun test`', '`deno test -A --no-check`', 'Jest in its ESM mode']) {
      expect(readme).toContain(command);
    }
  });

  it('has no top-level await and uses only the shipped samples', () => {
    expect(code).not.toMatch(/^(const|let|await) [^\n]*\bawait\b/m);
    for (const [, path] of code.matchAll(/`\$\{samples\}\/([\w.]+)`/g)) expect(['speech.wav', 'portrait.png']).toContain(path);
  });

  it.each(['vitest', 'Jest'] as const)('passes under %s', { timeout: 240_000 }, async (runner) => {
    await writeFile(join(project, 'video.test.mjs'), fileFor(runner));
    const result = await runTests(process.execPath, project, runner === 'vitest' ? 'vitest' : 'jest-esm', runner);
    expect(failures(result)).toEqual([]);
    expect(result.numPassedTests).toBe(TESTS);
  });

  describe.each([
    ['bun', 'vitest', ['test', './video.test.mjs']],
    ['deno', 'Deno', ['test', '-A', '--no-check', 'video.test.mjs']],
  ] as const)('%s', (name: Runtime, variant, args) => {
    let binary: RuntimeBinary;
    beforeAll(async () => {
      binary = await runtimeBinary(name);
    }, 300_000);

    it(`passes under ${name} test`, { timeout: 120_000 }, async (context) => {
      const path = usable(context, binary).path;
      await writeFile(join(project, `${name}.test.mjs`), fileFor(variant));
      const env = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' };
      const fileArgs = args.map((arg) => arg.replace('video.test.mjs', `${name}.test.mjs`));
      const result = await finished(spawn(path, fileArgs, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] }));
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code, output).toBe(0);
      expect(output).toMatch(name === 'bun' ? new RegExp(`\\b${TESTS} pass\\b`) : new RegExp(`\\b${TESTS} passed\\b`));
    });
  });
});
