/**
 * Compiles test/types/*.ts with tsc against the published declarations: this run's build (test/setup/build.ts),
 * installed where `import ... from 'avatar-video'` finds it as it finds it in a user's project. Those files hold
 * the public API's type contract as `@ts-expect-error` lines (create params are one-of, Video's fields are
 * checked, option names): a line that stops being an error is reported as an unused directive, and this test
 * prints it. (`npm run typecheck` compiles the same files against the sources.)
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { consumer } = await builtPackage();
const closers = useCleanup();

describe('public types', () => {
  it('test/types compiles: every @ts-expect-error line is an error, every other line is not', async () => {
    const sources = join(root, 'test/types');
    const work = await mkdtemp(join(consumer, 'types-'));
    closers.push(() => rm(work, { recursive: true, force: true }));
    const files = (await readdir(sources)).filter((name) => name.endsWith('.ts'));
    await Promise.all(files.map((name) => copyFile(join(sources, name), join(work, name))));
    // ES modules, as in this repository; the project's compiler options, without its path to the sources.
    await writeFile(join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { paths: {} }, include: ['*.ts'] }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const output = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', work], { cwd: work }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout || String(error),
    );
    expect(files.length).toBeGreaterThan(0);
    expect(output).toBe('');
  });
});
