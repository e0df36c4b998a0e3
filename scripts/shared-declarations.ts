/**
 * Makes the other entries' declarations name the main entry's types rather than copies of them (and
 * avatar-video/testing's name avatar-video/webhooks' `VideoEvent`). The build takes the error classes and `toFile`'s
 * class from the main entry at run time (tsup.config.ts); the declaration bundler has no such setting, so it copies
 * every type the helpers' signatures reach (`Uploadable`, `NamedUpload`, `VideoCreateParams`, ...) into the entry's
 * `.d.ts`, unexported. This replaces each such copy by an import of the declaration from the entry that has it,
 * after checking that the two are the same text.
 *
 * Run after tsup (`npm run build` does): `tsx scripts/shared-declarations.ts [outDir]`. Running it twice changes
 * nothing more.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const MAIN = 'avatar-video';
/** The entries other entries take declarations from, by the name users import them by. */
const SPECIFIERS = { index: MAIN, 'webhooks/index': 'avatar-video/webhooks' } as const;
/**
 * The entries whose declarations may hold copies of another entry's, each with the entries it takes them from, in
 * order. An entry shared from comes before those that take from it, so that what it took is an import by then.
 */
const ENTRIES: Array<[entry: string, from: Array<keyof typeof SPECIFIERS>]> = [
  ['media/index', ['index']],
  ['proxy/index', ['index']],
  ['webhooks/index', ['index']],
  ['ai-sdk/index', ['index']],
  // The events its deliveries carry: avatar-video/webhooks' `VideoEvent`, whose video is the main entry's.
  ['bullmq/index', ['index', 'webhooks/index']],
  // `signedEvent`'s video and event: the main entry's `Video`, avatar-video/webhooks' `VideoEvent`.
  ['testing/index', ['index', 'webhooks/index']],
];

export async function importSharedDeclarations(outDir: string): Promise<void> {
  for (const extension of ['.d.ts', '.d.cts']) {
    for (const [entry, from] of ENTRIES) {
      const path = join(outDir, `${entry}${extension}`);
      let text = await readFile(path, 'utf8');
      for (const source of from) {
        const declarations = topLevel(await readFile(join(outDir, `${source}${extension}`), 'utf8'));
        text = shareWith(text, declarations, SPECIFIERS[source]);
      }
      await writeFile(path, text);
    }
  }
}

/**
 * `text` with each declaration that `from` also declares (the same text) replaced by an import of it from
 * `specifier`, the entry `from` is: an entry that exports one too (`MediaLimits`) then exports that entry's, through
 * its export list.
 */
export function shareWith(text: string, from: Map<string, string>, specifier: string): string {
  const own = topLevel(text);
  const exported = exportedNames(text);
  const shared = [...own].filter(([name]) => from.has(name));
  for (const [name, declaration] of shared) {
    if (from.get(name) !== declaration) throw new Error(`${name} differs from ${specifier}'s declaration of it`);
  }
  if (shared.length === 0) return text;
  const source = parse(text);
  const names = new Set(shared.map(([name]) => name));
  const kept = source.statements
    .filter((statement) => !names.has(declaredName(statement) ?? ''))
    .map((statement) => text.slice(statement.getFullStart(), statement.getEnd()))
    .join('');
  // Only what the rest still names or exports: a copy may have been there only for another copy.
  const used = [...names].filter((name) => exported.has(name) || new RegExp(`\\b${name}\\b`).test(kept)).sort();
  return `${used.length > 0 ? `import { ${used.join(', ')} } from '${specifier}';\n` : ''}${kept}\n`;
}

function parse(text: string): ts.SourceFile {
  return ts.createSourceFile('entry.d.ts', text, ts.ScriptTarget.Latest, true);
}

/** Each top-level declaration by name, as written (its TSDoc apart). */
function topLevel(text: string): Map<string, string> {
  const declarations = new Map<string, string>();
  for (const statement of parse(text).statements) {
    const name = declaredName(statement);
    if (name) declarations.set(name, statement.getText());
  }
  return declarations;
}

function declaredName(statement: ts.Statement): string | undefined {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations[0]?.name.getText();
  if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) return undefined;
  return ts.getNameOfDeclaration(statement as ts.DeclarationStatement)?.getText();
}

/** The names the file's export lists give out. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isExportSpecifier(node)) names.add((node.propertyName ?? node.name).getText());
    ts.forEachChild(node, visit);
  };
  visit(parse(text));
  return names;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await importSharedDeclarations(resolve(process.argv[2] ?? 'dist'));
}
