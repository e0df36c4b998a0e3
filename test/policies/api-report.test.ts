/**
 * The public-surface check (scripts/api-report.ts, `npm run api:check`): it passes on the reports it wrote and fails,
 * naming the entry and showing the difference, when the built surface and the committed report differ. Run on a
 * small package of its own (a package.json and two declaration files), so no build of this one is needed; the last
 * test holds this repository's etc/ to one report per entry of its `exports`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiEntries, apiReports, describeResults } from '../../scripts/api-report.js';
import { useCleanup } from '../helpers/fixture.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

const PACKAGE = {
  name: 'surface-fixture',
  version: '1.0.0',
  type: 'module',
  exports: {
    '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } },
    './extra': { types: './dist/extra.d.ts', default: './dist/extra.js' },
    './package.json': './package.json',
  },
};
const MAIN = '/** Greets. */\nexport declare function hello(name: string): string;\nexport declare const VERSION = "1.0.0";\n';
const EXTRA = 'export interface Extra {\n    /** Counted. */\n    count: number;\n}\n';

describe('scripts/api-report.ts: the public-surface reports', () => {
  const cleanup = useCleanup();
  /** The package with its reports written, once; each test changes a copy of it. */
  let pristine: string;
  let root: string;
  const report = (name: string) => join(root, 'etc', `${name}.api.md`);

  beforeAll(async () => {
    pristine = await mkdtemp(join(tmpdir(), 'api-report-'));
    cleanup.push(() => rm(pristine, { recursive: true, force: true }));
    await mkdir(join(pristine, 'dist'));
    await writeFile(join(pristine, 'package.json'), JSON.stringify(PACKAGE));
    await writeFile(join(pristine, 'dist', 'index.d.ts'), MAIN);
    await writeFile(join(pristine, 'dist', 'extra.d.ts'), EXTRA);
    apiReports({ root: pristine, update: true });
  });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'api-report-'));
    cleanup.push(() => rm(root, { recursive: true, force: true }));
    await cp(pristine, root, { recursive: true });
  });

  it('writes one report per entry with declarations, and a check right after finds nothing changed', async () => {
    expect(readdirSync(join(root, 'etc')).sort()).toEqual(['extra.api.md', 'main.api.md']);
    expect(await readFile(report('main'), 'utf8')).toContain('export function hello(name: string): string;');
    const results = apiReports({ root });
    expect(results.map(({ entry, changed, problems }) => ({ entry, changed, problems }))).toEqual([
      { entry: 'main', changed: false, problems: [] },
      { entry: 'extra', changed: false, problems: [] },
    ]);
    expect(describeResults(results, false).failed).toBe(false);
  });

  it('fails on a report with a line removed, names the entry, shows the line, and leaves the report as it was', async () => {
    const edited = (await readFile(report('main'), 'utf8')).replace(/^export function hello.*\n/m, '');
    await writeFile(report('main'), edited);
    const results = apiReports({ root });
    const main = results.find((result) => result.entry === 'main');
    expect(main?.changed).toBe(true);
    expect(main?.diff).toContain('+export function hello(name: string): string;');
    expect(results.find((result) => result.entry === 'extra')?.changed).toBe(false);
    const { lines, failed } = describeResults(results, false);
    expect(failed).toBe(true);
    expect(lines.join('\n')).toMatch(/^main: CHANGED/m);
    expect(lines.join('\n')).toContain('npm run api:update');
    expect(await readFile(report('main'), 'utf8')).toBe(edited);
  });

  it('fails on a changed declaration: a member added to an exported interface', async () => {
    await writeFile(join(root, 'dist', 'extra.d.ts'), EXTRA.replace('}', '    label?: string;\n}'));
    const extra = apiReports({ root }).find((result) => result.entry === 'extra');
    expect(extra?.changed).toBe(true);
    expect(extra?.diff).toContain('+    label?: string;');
  });

  it('fails on a report for no entry, which an update removes', async () => {
    await writeFile(report('gone'), '');
    const results = apiReports({ root });
    expect(results.find((result) => result.entry === 'gone')?.problems).toEqual(['no entry of exports has this report']);
    expect(describeResults(results, false).failed).toBe(true);
    apiReports({ root, update: true });
    expect(existsSync(report('gone'))).toBe(false);
  });

  it('says to build first when the declarations are not there', async () => {
    await rm(join(root, 'dist', 'extra.d.ts'));
    expect(() => apiReports({ root })).toThrow(/no declarations for \.\/extra: run `npm run build` first/);
  });

  it('exits non-zero from the command line on a changed surface, as `npm run api:check` does', async () => {
    await writeFile(join(root, 'dist', 'index.d.ts'), `${MAIN}export declare function goodbye(): void;\n`);
    const failure = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'api-report.ts'), '--root', root]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toMatch(/^main: CHANGED/m);
    expect(failure?.stdout).toContain('+export function goodbye(): void;');
  }, 90_000);
});

describe("this repository's reports", () => {
  it('has one committed report in etc/ for each entry of package.json, and no other', () => {
    const names = apiEntries(ROOT).map((entry) => entry.name);
    expect(names).toEqual(['main', 'testing', 'bullmq', 'media', 'web', 'proxy', 'webhooks', 'ai-sdk']);
    expect(
      readdirSync(join(ROOT, 'etc'))
        .filter((file) => file.endsWith('.api.md'))
        .sort(),
    ).toEqual(names.map((name) => `${name}.api.md`).sort());
  });
});
