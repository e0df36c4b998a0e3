import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { repoTemp } from './repo-temp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Compile entries the way the package is built (tsup, dependencies left in node_modules), so the
 * benches time the code users run: tsx adds per-closure `__name` calls and ~35 MB of RSS of its own.
 * Output goes under the repo's git-ignored `.tmp/`, where node_modules still resolves.
 */
export async function compile(entries: string[]): Promise<{ paths: string[]; remove(): Promise<void> }> {
  const outDir = await repoTemp('bench-');
  await build({
    entry: Object.fromEntries(entries.map((entry) => [basename(entry, '.ts'), join(ROOT, entry)])),
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    splitting: false,
    sourcemap: false,
    dts: false,
    clean: false,
    silent: true,
    config: false,
  });
  return {
    paths: entries.map((entry) => join(outDir, `${basename(entry, '.ts')}.js`)),
    remove: () => rm(outDir, { recursive: true, force: true }),
  };
}
