/**
 * Cold import time: `import('avatar-video')`, the package as `npm pack` makes it, against `import('openai')` (the
 * devDependency), each timed inside a fresh process; `require()` too. The contenders alternate who goes first each
 * round; the figures are medians. Target: avatar-video's `import()` at most 1.2x openai's.
 *
 *   npx tsx bench/import.ts [rounds=21] [tarball]
 *
 * Packs the package (rebuilding dist/) unless given a tarball, e.g. an earlier version's from `npm pack avatar-video@x`.
 * Without openai installed it times avatar-video alone and says so.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { join, sep } from 'node:path';
import { wholeArgs } from './support/args.js';
import { packPackage } from './support/pack.js';
import { repoTemp } from './support/repo-temp.js';
import { run } from './support/spawn.js';

const [ROUNDS] = wholeArgs(['rounds', 21]);
const TARGET = 1.2;
const FORMATS = ['import', 'require'] as const;
type Format = (typeof FORMATS)[number];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Milliseconds the package `name` took to load, in a fresh process started in `cwd`. */
async function coldLoad(cwd: string, name: string, format: Format): Promise<number> {
  const load = format === 'import' ? 'await import(process.argv[1])' : 'require(process.argv[1])';
  const code = `const t = performance.now(); ${load}; console.log(performance.now() - t);`;
  const args = format === 'import' ? ['--input-type=module', '-e', code, name] : ['-e', code, name];
  return Number((await run(process.execPath, args, cwd)).stdout);
}

/** A folder inside the repository, whose node_modules/avatar-video is the packed package: its dependencies and openai resolve from the repository's node_modules. */
async function consumerOf(tarball: string): Promise<string> {
  const consumer = await repoTemp('bench-import-');
  const pkg = join(consumer, 'node_modules', 'avatar-video');
  await mkdir(pkg, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1']);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'bench-import', private: true }));
  return consumer;
}

/** openai's version, if it resolves from `consumer`. */
async function openaiVersion(consumer: string): Promise<string | undefined> {
  let entry: string;
  try {
    entry = createRequire(join(consumer, 'package.json')).resolve('openai');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  // Its package.json is not among its exports: read it from the package's folder.
  const folder = entry.slice(0, entry.lastIndexOf(`${sep}openai${sep}`) + `${sep}openai`.length);
  return (JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

const given = process.argv[3];
const packed = given ? { tarball: given, version: `(${given})`, remove: async () => {} } : await packPackage();
const consumer = await consumerOf(packed.tarball);
try {
  const openai = await openaiVersion(consumer);
  if (!openai) console.log('openai is NOT installed (it is a devDependency: npm install): timing avatar-video alone, no ratio.\n');
  const contenders = openai ? ['avatar-video', 'openai'] : ['avatar-video'];
  const label = (name: string) => `${name} ${name === 'openai' ? openai : packed.version}`;
  console.log(`load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores: other work on the machine skews times`);
  // One untimed load each, so that the first counted one does not read the files from disk.
  for (const name of contenders) for (const format of FORMATS) await coldLoad(consumer, name, format);
  const ms = new Map(contenders.flatMap((name) => FORMATS.map((format) => [`${name} ${format}`, [] as number[]])));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const format of FORMATS) for (const name of order) ms.get(`${name} ${format}`)?.push(await coldLoad(consumer, name, format));
  }
  const of = (name: string, format: Format) => median(ms.get(`${name} ${format}`) ?? []);
  console.log(`\nCold load in a fresh process, medians of ${ROUNDS} rounds, contenders alternating:\n`);
  console.log('| package | import() ms | require() ms |\n|---|---|---|');
  for (const name of contenders) console.log(`| ${label(name)} | ${of(name, 'import').toFixed(1)} | ${of(name, 'require').toFixed(1)} |`);
  if (openai) {
    const ratio = of('avatar-video', 'import') / of('openai', 'import');
    console.log(`\navatar-video/openai import(): ${ratio.toFixed(2)}x (target <= ${TARGET}x; ${ratio <= TARGET ? 'met' : 'NOT met'})`);
    console.log(`avatar-video/openai require(): ${(of('avatar-video', 'require') / of('openai', 'require')).toFixed(2)}x`);
  }
} finally {
  await rm(consumer, { recursive: true, force: true });
  await packed.remove();
}
