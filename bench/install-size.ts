/**
 * What a user's `npm install` brings: the packed package installed from its tarball into a fresh folder, beside
 * `npm install openai` in another, both resolving their dependencies from the registry (network). Reports the size
 * of node_modules, its package count and its largest packages.
 *
 *   npx tsx bench/install-size.ts [tarball]
 *
 * Packs the package (rebuilding dist/) unless given a tarball. The openai installed is the devDependency's version.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sizeOf } from '../test/helpers/file-size.js';
import { packPackage } from './support/pack.js';
import { run } from './support/spawn.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MB = 1e6;

/** `npm install <spec>` in a fresh folder: node_modules' size, its packages (npm's own list of them) and the largest. */
async function install(spec: string) {
  const folder = await mkdtemp(join(tmpdir(), 'avatar-video-install-size-'));
  try {
    await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'install-size', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', spec], folder);
    const modules = join(folder, 'node_modules');
    const lock = JSON.parse(await readFile(join(modules, '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const packages = Object.keys(lock.packages);
    const sized = await Promise.all(packages.map(async (path) => ({ path, bytes: await sizeOf(join(folder, path)) })));
    const largest = sized
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 4)
      .map(({ path, bytes }) => `${path.replace(/^node_modules\//, '')} ${(bytes / MB).toFixed(1)}`);
    return { bytes: await sizeOf(modules), packages: packages.length, largest };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const given = process.argv[2];
const packed = given ? { tarball: given, remove: async () => {} } : await packPackage();
try {
  const { version } = JSON.parse(await readFile(join(ROOT, 'node_modules/openai/package.json'), 'utf8').catch(() => '{}')) as {
    version?: string;
  };
  const contenders = [
    ['avatar-video (packed)', packed.tarball],
    [`openai ${version ?? '(latest)'}`, version ? `openai@${version}` : 'openai'],
  ] as const;
  console.log('A fresh `npm install` of each, from the registry:\n');
  console.log('| installed | node_modules MB | packages | largest packages (MB) |\n|---|---|---|---|');
  for (const [name, spec] of contenders) {
    const result = await install(spec);
    console.log(`| ${name} | ${(result.bytes / MB).toFixed(1)} | ${result.packages} | ${result.largest.join(', ')} |`);
  }
} finally {
  await packed.remove();
}
