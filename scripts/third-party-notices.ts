/**
 * Writes THIRD-PARTY-NOTICES.md: the license of every package bundled into the built files (the command's own
 * dependencies, which tsup puts inside dist/cli.js so that library users do not install them, and tsup's shims).
 * MIT asks that each one's notice travel with its code; the package ships this file (package.json `files`).
 *
 * Run after a build, whenever the command's dependencies change: `npx tsx scripts/third-party-notices.ts [outDir]`.
 * test/e2e/install.test.ts fails while the file does not match the build.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NOTICES = 'THIRD-PARTY-NOTICES.md';

/**
 * The folders of the packages bundled into `outDir`'s JavaScript, by name. esbuild marks each bundled module with a
 * `// path/to/node_modules/name/file.js` line, the path relative to where the build ran (the repository's root).
 */
export async function bundledPackages(outDir: string): Promise<Map<string, string>> {
  const files = (await readdir(outDir, { recursive: true })).filter((file) => /\.c?js$/.test(file));
  const found = new Map<string, string>();
  for (const file of files) {
    const text = await readFile(join(outDir, file), 'utf8');
    for (const [, path = ''] of text.matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)) {
      // The last node_modules/ of the path holds the package (a nested copy: a/node_modules/b).
      const [, name = ''] = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path) ?? [];
      found.set(name, resolve(ROOT, path.slice(0, path.lastIndexOf(`node_modules/${name}`)), 'node_modules', name));
    }
  }
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

/** The notices for the packages bundled into `outDir`: each one's name and its license file, as it ships it. */
export async function notices(outDir: string): Promise<string> {
  const sections = [];
  for (const [name, dir] of await bundledPackages(outDir)) {
    const license = (await readdir(dir)).find((file) => /^licen[cs]e/i.test(file));
    if (!license) throw new Error(`${name} (${dir}) has no LICENSE file to copy into ${NOTICES}`);
    sections.push(`## ${name}\n\n${(await readFile(join(dir, license), 'utf8')).trim()}\n`);
  }
  const intro =
    'The built files (dist/) contain code of the packages below: the `avatar-video` command bundles its own ' +
    'dependencies, so that installing the library does not install them, and tsup adds a few lines of shims. ' +
    'Each package is distributed under its own license, reproduced here.';
  return [`# Third-party notices\n\n${intro}\n`, ...sections].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await writeFile(join(ROOT, NOTICES), await notices(resolve(process.argv[2] ?? 'dist')));
}
