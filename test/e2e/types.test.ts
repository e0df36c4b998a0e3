/**
 * The published declarations against the package as built and installed (test/setup/build.ts): test/types/*.ts
 * compiled against them, their value exports against what the ESM and CommonJS builds export, and what they show
 * users (only names users can import, no private member names, no pointers into this repository).
 * test/e2e/consumer.test.ts compiles a user's project under strict settings.
 */
import { execFile } from 'node:child_process';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { declarationFindings, declaredNames, declaredValues, privateReferences } from '../helpers/declarations.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir: pkg } = await builtPackage();
const closers = useCleanup();

/** Each published declaration file, with the specifier and format that load the code it describes, and one value it must declare. */
const ENTRIES = [
  { types: 'dist/index.d.ts', specifier: 'avatar-video', format: 'esm', value: 'AvatarVideo' },
  { types: 'dist/index.d.cts', specifier: 'avatar-video', format: 'cjs', value: 'AvatarVideo' },
  { types: 'dist/testing/index.d.ts', specifier: 'avatar-video/testing', format: 'esm', value: 'startMockServer' },
  { types: 'dist/testing/index.d.cts', specifier: 'avatar-video/testing', format: 'cjs', value: 'startMockServer' },
  { types: 'dist/bullmq/index.d.ts', specifier: 'avatar-video/bullmq', format: 'esm', value: 'createVideoProcessor' },
  { types: 'dist/bullmq/index.d.cts', specifier: 'avatar-video/bullmq', format: 'cjs', value: 'createVideoProcessor' },
  { types: 'dist/media/index.d.ts', specifier: 'avatar-video/media', format: 'esm', value: 'probeMedia' },
  { types: 'dist/media/index.d.cts', specifier: 'avatar-video/media', format: 'cjs', value: 'probeMedia' },
  { types: 'dist/web/index.d.ts', specifier: 'avatar-video/web', format: 'esm', value: 'AvatarVideo' },
  { types: 'dist/proxy/index.d.ts', specifier: 'avatar-video/proxy', format: 'esm', value: 'createProxyHandler' },
  { types: 'dist/proxy/index.d.cts', specifier: 'avatar-video/proxy', format: 'cjs', value: 'createProxyHandler' },
  { types: 'dist/webhooks/index.d.ts', specifier: 'avatar-video/webhooks', format: 'esm', value: 'verifyWebhook' },
  { types: 'dist/webhooks/index.d.cts', specifier: 'avatar-video/webhooks', format: 'cjs', value: 'verifyWebhook' },
  { types: 'dist/ai-sdk/index.d.ts', specifier: 'avatar-video/ai-sdk', format: 'esm', value: 'createAvatarVideo' },
  { types: 'dist/ai-sdk/index.d.cts', specifier: 'avatar-video/ai-sdk', format: 'cjs', value: 'createAvatarVideo' },
] as const;

/** The most names the main entry may export, values and types together (`default` counts as one). */
const MAIN_ENTRY_BUDGET = 70;
/** What avatar-video/media exports: none of it may be on the main entry as well. */
const MEDIA_NAMES = [
  'AudioSegment',
  'JoinVideosOptions',
  'JoinVideosResult',
  'LIMITS',
  'MediaFormat',
  'MediaInfo',
  'MediaLimits',
  'ProbeOptions',
  'SplitAudioOptions',
  'SplitAudioResult',
  'ValidateOptions',
  'ValidatedCreate',
  'joinVideos',
  'probeMedia',
  'splitAudio',
  'validateCreateParams',
];

/** Names on both entries: `MediaLimits`, the client's `limits` and validateCreateParams' options (docs/options.md). */
const SHARED_WITH_MEDIA = ['MediaLimits'];

/** In a child process of the consumer, as a user's code loads it: the declared names it lacks and the ones it adds. */
const COMPARE = `
import { createRequire } from 'node:module';
const [specifier, format, list] = process.argv.slice(2);
const declared = JSON.parse(list);
const loaded = format === 'esm' ? await import(specifier) : createRequire(import.meta.url)(specifier);
const missing = declared.filter((name) => !(name in loaded));
const undeclared = Object.keys(loaded).filter((name) => !declared.includes(name));
console.log(JSON.stringify({ missing, undeclared }));
`;

describe('public types', () => {
  it('test/types compiles: every @ts-expect-error line is an error, every other line is not', async () => {
    const sources = join(root, 'test/types');
    const work = await consumerFolder('types-', closers);
    const files = (await readdir(sources)).filter((name) => name.endsWith('.ts'));
    await Promise.all(files.map((name) => copyFile(join(sources, name), join(work, name))));
    // ES modules, as in this repository; the project's compiler options, without its path to the sources.
    await writeFile(join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { paths: {} }, include: ['*.ts'] }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const output = await run(process.execPath, [tsc, '--noEmit', '-p', work], { cwd: work }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout || String(error),
    );
    expect(files.length).toBeGreaterThan(0);
    expect(output).toBe('');
  });
});

describe('the web entry', () => {
  it('declares nothing of Node (a Worker or a page has no @types/node) and none of the filesystem features', async () => {
    const text = await readFile(join(pkg, 'dist/web/index.d.ts'), 'utf8');
    expect(text.match(/^.*(['"](node:[^'"]+|undici)['"]|\bNodeJS\.|\bBuffer\b|\bReadable\b).*$/gm) ?? []).toEqual([]);
    expect(text).toContain('createAndWait');
    for (const name of ['download', 'generate', 'generateLong', 'generateBatch']) expect(text).not.toMatch(new RegExp(`\\b${name}\\(`));
  });
});

describe('the main entry', () => {
  it(`exports at most ${MAIN_ENTRY_BUDGET} names, of avatar-video/media's only the type both name, and QueueRateLimitError only from avatar-video/bullmq`, async () => {
    const main = declaredNames(join(pkg, 'dist/index.d.ts'));
    expect(declaredNames(join(pkg, 'dist/media/index.d.ts'))).toEqual(MEDIA_NAMES);
    expect(main.filter((name) => MEDIA_NAMES.includes(name) || name === 'QueueRateLimitError')).toEqual(SHARED_WITH_MEDIA);
    // The one type both give out is declared once, by the main entry: avatar-video/media exports it from there.
    const media = await readFile(join(pkg, 'dist/media/index.d.ts'), 'utf8');
    expect(media).toMatch(/^import \{[^}]*\bMediaLimits\b[^}]*\} from 'avatar-video';$/m);
    expect(media).not.toMatch(/\binterface MediaLimits\b/);
    expect(declaredNames(join(pkg, 'dist/bullmq/index.d.ts'))).toContain('QueueRateLimitError');
    expect(main).toContain('AvatarVideo');
    expect(main.length).toBeLessThanOrEqual(MAIN_ENTRY_BUDGET);
    // Three declaration programs built in turn: on a loaded machine that has taken over the default 30 s.
  }, 120_000);
});

describe.each(ENTRIES)('$types', ({ types, specifier, format, value }) => {
  const file = join(pkg, types);

  it(`declares exactly the values that ${format === 'esm' ? 'import' : 'require'}('${specifier}') gives`, async () => {
    const declared = declaredValues(file);
    const work = await consumerFolder('exports-', closers);
    await writeFile(join(work, 'compare.mjs'), COMPARE);
    const { stdout } = await run(process.execPath, ['compare.mjs', specifier, format, JSON.stringify(declared)], { cwd: work });
    expect(declared).toContain(value);
    expect(JSON.parse(stdout)).toEqual({ missing: [], undeclared: [] });
  });

  it('names only what users can import, shows no private member or default constructor; every option takes undefined and has a @default', () => {
    const none = { unexported: [], hidden: [], defaultConstructor: [], refuseUndefined: [], noDefault: [] };
    expect(declarationFindings(file)).toEqual(none);
  });

  it("points to nothing users lack: no source file, no numbered spec section, no import of mediabunny's types", async () => {
    const text = await readFile(file, 'utf8');
    expect(privateReferences(text)).toEqual([]);
    // mediabunny's declarations reference DOM types (@types/dom-webcodecs) that do not compile in a Node program.
    expect(text.match(/^.*['"]mediabunny['"].*$/gm) ?? []).toEqual([]);
  });
});
