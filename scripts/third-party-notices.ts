/**
 * Writes THIRD-PARTY-NOTICES.md: the license of every package bundled into the built files (the command's own
 * dependencies, which tsup puts inside dist/cli.js so that library users do not install them, the msw parts the mock
 * uses with their dependencies, inside dist/testing, and tsup's shims),
 * and of mediabunny, whose own Node bundle the package ships (scripts/vendor.ts). MIT asks that each one's notice
 * travel with its code, MPL-2.0 that users learn where its source code is; the package ships this file
 * (package.json `files`).
 *
 * Run after a build, whenever the command's dependencies change: `npx tsx scripts/third-party-notices.ts [outDir]`.
 * test/e2e/install.test.ts fails while the file does not match the build.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { VENDORED_MEDIABUNNY } from './vendor.js';

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

/**
 * A package's license file, as it ships it; for a package that ships none (is-node-process), the license its
 * package.json declares and where its source is, said as such.
 */
async function licenseOf(name: string, dir: string): Promise<string> {
  const license = (await readdir(dir)).find((file) => /^licen[cs]e/i.test(file));
  if (license) return (await readFile(join(dir, license), 'utf8')).trim();
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { license?: string; repository?: { url?: string } };
  if (!manifest.license) throw new Error(`${name} (${dir}) has no LICENSE file nor license field to copy into ${NOTICES}`);
  const source = manifest.repository?.url ? ` Source code: ${manifest.repository.url}.` : '';
  return `License: ${manifest.license}, as its package.json declares; the package ships no license text or copyright line.${source}`;
}

/**
 * mediabunny's section: which file is its code, its license, copyright and where its source code is (MPL-2.0 3.2),
 * then the license. Fails unless `outDir` holds its Node bundle byte for byte, as the notice says.
 */
async function vendoredMediabunny(outDir: string): Promise<string> {
  const { packageDir, file, output } = VENDORED_MEDIABUNNY;
  const original = await readFile(join(packageDir, file));
  if (!original.equals(await readFile(join(outDir, output)))) throw new Error(`${output} is not ${file} of mediabunny, unmodified`);
  const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
    license: string;
    repository: { url: string };
  };
  const [copyright] = /Copyright \(c\).*$/m.exec(original.toString('utf8', 0, 1000)) ?? [];
  if (!copyright) throw new Error(`mediabunny's ${file} starts with no copyright line`);
  const source = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  const facts = [
    `\`dist/${output}\` is \`${file}\` of the npm package mediabunny ${manifest.version}, unmodified.`,
    '',
    `- License: ${manifest.license}, whose text follows.`,
    `- ${copyright}`,
    `- Source code: ${source}; the npm package mediabunny@${manifest.version} also holds it, under \`src/\`.`,
  ];
  return `## mediabunny\n\n${facts.join('\n')}\n\n${await licenseOf('mediabunny', packageDir)}\n`;
}

/** The notices for the packages bundled into `outDir` (each one's name and license), then for mediabunny. */
export async function notices(outDir: string): Promise<string> {
  const sections = [];
  for (const [name, dir] of await bundledPackages(outDir)) sections.push(`## ${name}\n\n${await licenseOf(name, dir)}\n`);
  sections.push(await vendoredMediabunny(outDir));
  const intro =
    'The built files (dist/) contain code of the packages below: the `avatar-video` command bundles its own ' +
    'dependencies, so that installing the library does not install them, `avatar-video/testing` bundles the parts ' +
    'of msw its mock uses, with their own dependencies, so that it works whichever msw a project has or none, ' +
    'tsup adds a few lines of shims, and ' +
    `\`dist/${VENDORED_MEDIABUNNY.output}\` is mediabunny's own build, shipped so that installing the library does not ` +
    'install mediabunny and the DOM type packages it depends on. Each package is distributed under its own license, ' +
    'reproduced here.';
  return [`# Third-party notices\n\n${intro}\n`, ...sections].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await writeFile(join(ROOT, NOTICES), await notices(resolve(process.argv[2] ?? 'dist')));
}
