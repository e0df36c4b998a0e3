/**
 * `npm pack` of a fresh clone ships the build: `prepack` runs it. The clone is the repository's tracked files only
 * (no dist/), as `git clone` gives them, with the repository's node_modules linked in for the build's tools.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const closers = useCleanup();

it('packs dist/ from a clone that has none: prepack builds it', { timeout: 180_000 }, async () => {
  const clone = await mkdtemp(join(tmpdir(), 'avatar-pack-'));
  closers.push(() => rm(clone, { recursive: true, force: true }));
  const { stdout: tracked } = await run('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 1 << 24 });
  for (const file of tracked.split('\0').filter(Boolean)) {
    await mkdir(dirname(join(clone, file)), { recursive: true });
    await cp(join(root, file), join(clone, file)).catch(() => {}); // a file deleted but not yet committed
  }
  await symlink(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  // npm is npm.cmd on Windows, which only a shell runs.
  // The build's own lines come first on stdout (tsup prints `[...]` lines); npm's JSON is the array that follows.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], {
    cwd: clone,
    maxBuffer: 1 << 24,
    shell: process.platform === 'win32',
  });
  const [packed] = JSON.parse(stdout.slice(stdout.search(/^\[$/m))) as Array<{ files: Array<{ path: string }> }>;
  const files = (packed?.files ?? []).map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/cli.js',
      'dist/media/index.js',
      'dist/proxy/index.js',
      'dist/proxy/index.cjs',
      'dist/webhooks/index.js',
      'dist/webhooks/index.cjs',
      'dist/ai-sdk/index.js',
      'dist/ai-sdk/index.cjs',
      'dist/testing/index.js',
      'dist/web/index.js',
      'dist/web/index.d.ts',
    ]),
  );
});
