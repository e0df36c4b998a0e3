/**
 * The public-surface reports: for each entry of package.json's `exports`, @microsoft/api-extractor reads the BUILT
 * declarations (`npm run build` first) and writes every name the entry exports, with its signature, to
 * etc/<entry>.api.md (`main` for `.`, else the subpath: `etc/testing.api.md`). The reports are committed, so a change
 * to the public API is a diff a reviewer sees; CI fails when the build's surface differs from them.
 *
 *   npm run api:check    tsx scripts/api-report.ts            fails, naming each entry whose surface changed
 *   npm run api:update   tsx scripts/api-report.ts --update   rewrites etc/ from the build
 *
 * `--root <folder>` reads another package (its package.json and declarations), `--reports <folder>` keeps the reports
 * elsewhere than `<root>/etc`. On a change the check leaves the build's report in `<root>/.tmp/api-report/` to diff.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  type IConfigFile,
} from '@microsoft/api-extractor';

const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const SUFFIX = '.api.md';

/** One public entry: its report's name and the declaration file package.json gives for it. */
export interface ApiEntry {
  name: string;
  subpath: string;
  declarations: string;
}

/** What one entry's run found: whether its surface differs from the committed report (and how), and the messages that failed it. */
export interface ApiReportResult {
  entry: string;
  report: string;
  changed: boolean;
  /** The change as a unified diff of the report, in a check. */
  diff?: string;
  problems: string[];
}

/** api-extractor's lines about the report itself, which the result says in its own words (`changed`, `diff`). */
const REPORT_MESSAGES = new Set(['console-api-report-not-copied', 'console-api-report-copied', 'console-api-report-created']);

export interface ApiReportOptions {
  /** The package: its package.json and the declarations that names. @default this repository */
  root?: string;
  /** The committed reports. @default `<root>/etc` */
  reports?: string;
  /** Rewrite the reports rather than compare. @default false */
  update?: boolean;
}

type Conditions = { types?: string; import?: Conditions | string; [condition: string]: unknown };

/**
 * The entries of `exports` that have declarations, each as Node's `import` sees it (else the subpath's own
 * `types`): the CommonJS declarations are the same names, and the runtime conditions of `.` lead to the web entry.
 */
export function apiEntries(root: string): ApiEntry[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, Conditions | string> };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string') return [];
    const types = (typeof target.import === 'object' ? target.import.types : undefined) ?? target.types;
    if (types === undefined) return [];
    return [
      { name: subpath === '.' ? 'main' : subpath.replace(/^\.\//, '').replaceAll('/', '-'), subpath, declarations: resolve(root, types) },
    ];
  });
}

/** api-extractor's settings for one entry: the report only (no doc model, no rollup), in Unix line ends as the repository keeps. */
function configFor(root: string, reports: string, entry: ApiEntry, all: ApiEntry[]): IConfigFile {
  return {
    projectFolder: root,
    mainEntryPointFilePath: entry.declarations,
    compiler: {
      overrideTsconfig: {
        // skipLibCheck: the declarations' own compile is test/e2e's (types.test.ts and the consumers' projects).
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          strict: true,
          skipLibCheck: true,
        },
        files: all.map((each) => each.declarations),
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.name,
      reportFolder: reports,
      reportTempFolder: join(root, '.tmp', 'api-report'),
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      // The package marks no release stages (@public, @beta) and its TSDoc uses tags of its own (@default): neither is
      // what the report is for. A type a signature reaches but the entry does not export is noted in the report.
      extractorMessageReporting: { 'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None } },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

/** Each entry's surface compared with (or, with `update`, written to) its report; reports of entries gone are flagged or removed. */
export function apiReports(options: ApiReportOptions = {}): ApiReportResult[] {
  const root = resolve(options.root ?? REPOSITORY);
  const reports = resolve(options.reports ?? join(root, 'etc'));
  const entries = apiEntries(root);
  const missing = entries.filter((entry) => !existsSync(entry.declarations));
  if (missing.length > 0) {
    throw new Error(`no declarations for ${missing.map((entry) => entry.subpath).join(', ')}: run \`npm run build\` first`);
  }
  const configs = entries.map((entry) => prepare(root, reports, entry, entries));
  // One program for every entry: the entries share most of their declarations through the main one.
  const compilerState = CompilerState.create(configs[0] as ExtractorConfig, {
    additionalEntryPoints: entries.map((entry) => entry.declarations),
  });
  const results = entries.map((entry, index) => runEntry(entry, configs[index] as ExtractorConfig, compilerState, options.update ?? false));
  return [...results, ...strayReports(reports, entries, options.update ?? false)];
}

function prepare(root: string, reports: string, entry: ApiEntry, all: ApiEntry[]): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: configFor(root, reports, entry, all),
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'package.json'),
  });
}

function runEntry(entry: ApiEntry, config: ExtractorConfig, compilerState: CompilerState, update: boolean): ApiReportResult {
  const problems: string[] = [];
  let diff: string | undefined;
  if (update) mkdirSync(config.reportFolder, { recursive: true });
  const result = Extractor.invoke(config, {
    localBuild: update,
    compilerState,
    printApiReportDiff: !update,
    messageCallback: (message: ExtractorMessage) => {
      // Said here, once per entry, rather than in api-extractor's own lines (which tell a user to copy files by hand).
      message.handled = true;
      if (message.messageId === 'console-api-report-diff') diff = message.text.replace(/^Changes to the API report:\s*/, '');
      else if (REPORT_MESSAGES.has(message.messageId)) return;
      else if (message.logLevel === 'error' || message.logLevel === 'warning')
        problems.push(message.formatMessageWithLocation(config.projectFolder));
    },
  });
  const report = join(config.reportFolder, `${entry.name}${SUFFIX}`);
  return { entry: entry.name, report, changed: result.apiReportChanged, ...(diff === undefined ? {} : { diff }), problems };
}

/** Reports in the folder for no entry of `exports` (an entry removed or renamed): removed by an update, a change to a check. */
function strayReports(reports: string, entries: ApiEntry[], update: boolean): ApiReportResult[] {
  if (!existsSync(reports)) return [];
  const names = new Set(entries.map((entry) => `${entry.name}${SUFFIX}`));
  const stray = readdirSync(reports).filter((file) => file.endsWith(SUFFIX) && !names.has(file));
  return stray.map((file) => {
    const report = join(reports, file);
    if (update) rmSync(report);
    return { entry: file.slice(0, -SUFFIX.length), report, changed: true, problems: update ? [] : ['no entry of exports has this report'] };
  });
}

/** One line per entry for the terminal, and whether the run failed (a check with a change, or any problem). */
export function describeResults(results: ApiReportResult[], update: boolean): { lines: string[]; failed: boolean } {
  const lines = results.map(({ entry, report, changed, diff, problems }) => {
    const state = problems.length > 0 ? 'problems' : changed ? (update ? 'updated' : 'CHANGED') : 'unchanged';
    return [
      `${entry}: ${state} (${relative(process.cwd(), report)})`,
      ...problems.map((problem) => `  ${problem}`),
      ...(diff ? [diff] : []),
    ].join('\n');
  });
  const failed = results.some(({ changed, problems }) => problems.length > 0 || (changed && !update));
  if (failed && !update)
    lines.push('The built surface differs from the committed reports: if the change is meant, `npm run api:update` and commit etc/.');
  return { lines, failed };
}

function flagValue(flag: string): string | undefined {
  const index = process.argv.indexOf(flag);
  return index === -1 ? undefined : process.argv[index + 1];
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const update = process.argv.includes('--update');
  const results = apiReports({ root: flagValue('--root'), reports: flagValue('--reports'), update });
  const { lines, failed } = describeResults(results, update);
  console.log(lines.join('\n'));
  process.exitCode = failed ? 1 : 0;
}
