/**
 * The TypeScript and JavaScript blocks of README.md checked as a user's files by the TypeScript compiler, each its own
 * module in `folder` (which must resolve `avatar-video` to the package to check against): a ```ts block is an ES
 * module (`.mts`, so top-level `await` is allowed), a ```js block an `.mjs` (or `.cjs` when it calls `require`),
 * checked with `checkJs` (strict but for `noImplicitAny`: JavaScript has nowhere to write a type). `strict`, and an
 * unused import is an error too. Two markers on the lines above a block say how it is meant:
 *   <!-- fragment: ... -->  the TypeScript declarations it assumes (a `client`, an `id`), put before its code;
 *   <!-- web: ... -->       it runs in a Worker or a page: checked with the `workerd` condition (so `avatar-video` is
 *                           the web entry), the DOM's types and no Node types, as a Worker's project sets it up.
 * Each error is given as `README.md:<line>: TS<code> <message>`, its line the README's.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import type { ReadmeBlock } from './readme.js';

/** What a user's project checks with: strict, modern output, the libraries' own declarations not rechecked (as most set). */
const STRICT: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  allowJs: true,
  checkJs: true,
  // Reports unused locals and imports; only the imports are kept (a snippet may well show a value it does not use).
  noUnusedLocals: true,
  skipLibCheck: true,
};
const NODE: ts.CompilerOptions = {
  ...STRICT,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
};
/** JavaScript has no annotations to give, so a value whose type is left open is no error there (the rest of strict is). */
const NODE_JS: ts.CompilerOptions = { ...NODE, noImplicitAny: false };
const WEB: ts.CompilerOptions = {
  ...STRICT,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: ['workerd'],
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: [],
};

/** The file a block is written to: its extension says what kind of module it is. */
function fileName(block: ReadmeBlock, index: number): string {
  const js = ['js', 'javascript', 'jsx', 'mjs', 'cjs'].includes(block.lang);
  const extension = js ? (block.lang === 'cjs' || /\brequire\(/.test(block.code) ? 'cjs' : 'mjs') : 'mts';
  return `block-${String(index).padStart(2, '0')}-line-${block.line}.${extension}`;
}

/** The file's text: the fragment's declarations on its first line, then the block as printed. */
const prelude = (block: ReadmeBlock) => (block.markers.fragment ?? '').replaceAll('\n', ' ');
const source = (block: ReadmeBlock) => `${prelude(block)}\n${block.code}\n`;

/** Whether a diagnostic is one `noUnusedLocals` gives for something other than an import: not reported. */
function unusedNonImport(diagnostic: ts.Diagnostic): boolean {
  if (![6133, 6196, 6198].includes(diagnostic.code) || !diagnostic.file || diagnostic.start === undefined) return false;
  let node = findNode(diagnostic.file, diagnostic.start);
  while (node && !ts.isImportDeclaration(node)) node = node.parent;
  return !node;
}

/** The innermost node of `file` at `position`. */
function findNode(file: ts.SourceFile, position: number): ts.Node | undefined {
  const visit = (node: ts.Node): ts.Node | undefined =>
    position >= node.getStart(file) && position < node.getEnd() ? (ts.forEachChild(node, visit) ?? node) : undefined;
  return visit(file);
}

/** Each error of the block's file as `README.md:<line>: TS<code> <message>`, its line mapped back to the README. */
function errors(program: ts.Program, path: string, block: ReadmeBlock): string[] {
  const file = program.getSourceFile(path);
  if (!file) return [`${path} is not in the program`];
  const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  return found
    .filter((diagnostic) => !unusedNonImport(diagnostic))
    .map((diagnostic) => {
      const at = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
      const where = at === 0 ? `the fragment marker above README.md:${block.line}` : `README.md:${block.line + at - 1}`;
      return `${where}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
}

/** Each block's errors (none: an empty list), the blocks written into `folder` and compiled there. */
export async function checkBlocks(folder: string, blocks: ReadmeBlock[]): Promise<Map<ReadmeBlock, string[]>> {
  const results = new Map<ReadmeBlock, string[]>();
  const files = blocks.map((block, index) => ({ block, path: join(folder, fileName(block, index)) }));
  await Promise.all(files.map(({ block, path }) => writeFile(path, source(block))));
  const programs = new Map([
    [NODE, files.filter(({ block, path }) => block.markers.web === undefined && path.endsWith('.mts'))],
    [NODE_JS, files.filter(({ block, path }) => block.markers.web === undefined && !path.endsWith('.mts'))],
    [WEB, files.filter(({ block }) => block.markers.web !== undefined)],
  ]);
  for (const [options, mine] of programs) {
    const program = ts.createProgram({ rootNames: mine.map(({ path }) => path), options });
    for (const { block, path } of mine) results.set(block, errors(program, path, block));
  }
  return results;
}
