/**
 * The names each public entry exports, read with the TypeScript compiler from the declarations the built package
 * publishes (package.json's `exports`, their `types`): how many, how many are values (classes, functions, constants)
 * and how many only types. Needs dist/ (`npm run build`).
 *
 *   npx tsx scripts/entry-exports.ts [--names]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Each entry and the export condition whose declarations it is: the main entry as Node imports it. */
const ENTRIES: [entry: string, subpath: string, condition: string][] = [
  ['main', '.', 'import'],
  ['web', './web', 'default'],
  ['media', './media', 'import'],
  ['testing', './testing', 'import'],
  ['proxy', './proxy', 'import'],
  ['webhooks', './webhooks', 'import'],
  ['bullmq', './bullmq', 'import'],
  ['ai-sdk', './ai-sdk', 'import'],
];

type Conditions = { types?: string; [condition: string]: unknown };

/** The declaration file package.json gives for `subpath` under `condition` (or at the subpath's top). */
function declarationsOf(subpath: string, condition: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Conditions> };
  const target = pkg.exports[subpath];
  const types = (target?.[condition] as Conditions | undefined)?.types ?? target?.types;
  if (types === undefined) throw new Error(`package.json exports no types for ${subpath}`);
  return join(ROOT, types);
}

const files = ENTRIES.map(([, subpath, condition]) => declarationsOf(subpath, condition));
const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext });
const checker = program.getTypeChecker();
const listNames = process.argv.includes('--names');

console.log('| entry | names | values | types only |\n|---|---|---|---|');
ENTRIES.forEach(([entry], i) => {
  const source = program.getSourceFile(files[i] as string);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${files[i]}: not found; run npm run build first`);
  const names = checker.getExportsOfModule(module);
  const resolved = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const values = names.filter((s) => resolved(s).flags & ts.SymbolFlags.Value);
  console.log(`| ${entry} | ${names.length} | ${values.length} | ${names.length - values.length} |`);
  if (listNames) console.log(`  ${names.map((s) => s.name).join(', ')}`);
});
