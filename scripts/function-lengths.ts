/**
 * How many lines each function body of src/ spans, read with the TypeScript compiler: functions, methods (constructors
 * and accessors too), arrow functions and function expressions. test/policies/function-length.test.ts holds them to a
 * limit; run this file to print the longest.
 *
 *   npx tsx scripts/function-lengths.ts [count=10]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** One function of src/: where it starts and how many lines its body spans, its first line and last included. */
export interface FunctionLength {
  /** Path under src/, with forward slashes. */
  file: string;
  /** The line its declaration starts on, from 1. */
  line: number;
  /** Its name, or what it is passed to or assigned to when it has none of its own. */
  name: string;
  lines: number;
}

type FunctionNode = ts.FunctionLikeDeclaration & { body: ts.ConciseBody };

function isFunctionWithBody(node: ts.Node): node is FunctionNode {
  const functionLike =
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node);
  return functionLike && node.body !== undefined;
}

/** The name of a property, variable or function as written, when it has a plain one. */
function nameOf(name: ts.Node | undefined, source: ts.SourceFile): string | undefined {
  if (name === undefined) return undefined;
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText(source);
}

/** `Class.method` for a class member, else the function's own name, else the name it is bound to or the call it is passed to. */
function describe(node: FunctionNode, source: ts.SourceFile): string {
  const own = ts.isConstructorDeclaration(node) ? 'constructor' : nameOf(node.name, source);
  if (own !== undefined) {
    const owner = ts.isClassLike(node.parent) ? nameOf(node.parent.name, source) : undefined;
    return owner === undefined ? own : `${owner}.${own}`;
  }
  const { parent } = node;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return nameOf(parent.name, source) ?? '(anonymous)';
  }
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) return `(passed to ${parent.expression.getText(source)})`;
  return '(anonymous)';
}

/** Every function of one file, in the order they start. */
export function functionLengthsOf(path: string, file: string): FunctionLength[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionWithBody(node)) {
      const lines = lineOf(node.body.getEnd()) - lineOf(node.body.getStart(source)) + 1;
      found.push({ file, line: lineOf(node.getStart(source)), name: describe(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every function of every .ts file under `root` (src/ by default), longest first. */
export function functionLengths(root = SRC): FunctionLength[] {
  const all = sourceFiles(root).flatMap((path) => functionLengthsOf(path, relative(root, path).replaceAll('\\', '/')));
  return all.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

/** `file:line name (N lines)`, the form the policy test and this script print. */
export const formatLength = (f: FunctionLength) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = Number(process.argv[2] ?? 10);
  const all = functionLengths();
  console.log(`The ${count} longest of ${all.length} functions under src/ (lines of the body, braces included):\n`);
  for (const f of all.slice(0, count)) console.log(formatLength(f));
}
