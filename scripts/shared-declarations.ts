/**
 * Makes `avatar-video/media`'s (and `avatar-video/proxy`'s) declarations name the main entry's types rather than
 * copies of them. The build takes the error classes and `toFile`'s class from the main entry at run time (tsup.config.ts); the declaration bundler
 * has no such setting, so it copies every type the helpers' signatures reach (`Uploadable`, `NamedUpload`,
 * `VideoCreateParams`, ...) into the entry's `.d.ts`, unexported. This replaces each such copy by an import of the
 * declaration from `avatar-video`, after checking that the two are the same text.
 *
 * Run after tsup (`npm run build` does): `tsx scripts/shared-declarations.ts [outDir]`. Running it twice changes
 * nothing more.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The entries whose declarations may hold copies of the main entry's. */
const ENTRIES = ['media/index', 'proxy/index', 'ai-sdk/index'];
const MAIN = 'avatar-video';

export async function importSharedDeclarations(outDir: string): Promise<void> {
  for (const extension of ['.d.ts', '.d.cts']) {
    const main = topLevel(await readFile(join(outDir, `index${extension}`), 'utf8'));
    for (const entry of ENTRIES) {
      const path = join(outDir, `${entry}${extension}`);
      await writeFile(path, shareWithMain(await readFile(path, 'utf8'), main));
    }
  }
}

/**
 * `text` with each declaration that `main` also declares (the same text) replaced by an import of it: an entry that
 * exports one too (`MediaLimits`) then exports the main entry's, through its export list.
 */
export function shareWithMain(text: string, main: Map<string, string>): string {
  const own = topLevel(text);
  const exported = exportedNames(text);
  const shared = [...own].filter(([name]) => main.has(name));
  for (const [name, declaration] of shared) {
    if (main.get(name) !== declaration) throw new Error(`${name} differs from the main entry's declaration of it`);
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
  return `${used.length > 0 ? `import { ${used.join(', ')} } from '${MAIN}';\n` : ''}${kept}\n`;
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
