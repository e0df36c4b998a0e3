import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoTemp } from './repo-temp.js';
import { run } from './spawn.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The package as npm would publish it: `npm run build` (which rewrites dist/), then `npm pack` (its `prepack`
 * skipped: the build is done) into a folder under the repository's git-ignored `.tmp/`.
 */
export async function packPackage(): Promise<{ tarball: string; version: string; remove(): Promise<void> }> {
  await run('npm', ['run', 'build'], ROOT);
  const dir = await repoTemp('bench-pack-');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir, '--ignore-scripts'], ROOT);
  const [{ filename, version }] = JSON.parse(stdout) as [{ filename: string; version: string }];
  return { tarball: join(dir, filename), version, remove: () => rm(dir, { recursive: true, force: true }) };
}
