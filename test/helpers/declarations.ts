/**
 * Reads a published declaration file (`dist/**\/*.d.ts`, `.d.cts`) with the TypeScript compiler, as a user's tsc
 * reads it, for test/e2e/types.test.ts: what it says the module exports at runtime, and what it says that a user
 * cannot act on (names they cannot import, private member names, optional properties that refuse `undefined`).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * The names the file declares as runtime values of the module (classes, functions, constants, `default`), as the
 * checker resolves them: a `type`-only export is not one, and for `export =` the names are the exported class's
 * properties (its namespace's values and its statics, such as `prototype`).
 */
export function declaredValues(file: string): string[] {
  const { checker, exports } = moduleExports(file);
  const isValue = (symbol: ts.Symbol) => {
    const typeOnly = symbol.declarations?.some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly));
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return !typeOnly && (target.flags & ts.SymbolFlags.Value) !== 0;
  };
  return exports
    .filter(isValue)
    .map((symbol) => symbol.name)
    .sort();
}

/** Every name the module exports, values and types alike: what users can import from it. */
export function declaredNames(file: string): string[] {
  return moduleExports(file)
    .exports.map((symbol) => symbol.name)
    .sort();
}

/** What a declaration file shows that a user cannot act on, by kind; each list is empty when there is none. */
export interface DeclarationFindings {
  /** Top-level declarations the file does not export: a public type that names one names what users cannot import. */
  unexported: string[];
  /** `private` and `protected` class members: their names are shown although nobody outside may use them. */
  hidden: string[];
  /**
   * Classes that declare no constructor and extend nothing: TypeScript then lets anyone call `new` without
   * arguments. A class users are not meant to build declares a private constructor instead.
   */
  defaultConstructor: string[];
  /** Optional properties whose type leaves out `undefined`, which `exactOptionalPropertyTypes` then refuses. */
  refuseUndefined: string[];
  /** Options (optional members of an `...Options` interface) whose TSDoc has no `@default`. */
  noDefault: string[];
}

export function declarationFindings(file: string): DeclarationFindings {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const exported = new Set<string>();
  const findings: DeclarationFindings = { unexported: [], hidden: [], defaultConstructor: [], refuseUndefined: [], noDefault: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isExportSpecifier(node)) exported.add((node.propertyName ?? node.name).getText());
    if (ts.isExportAssignment(node)) exported.add(node.expression.getText());
    // A private constructor shows no parameter: it only says that `new` is not for users.
    if (ts.isClassElement(node) && !ts.isConstructorDeclaration(node) && isHidden(node)) findings.hidden.push(memberName(node));
    if (ts.isClassDeclaration(node) && !node.heritageClauses && !node.members.some(ts.isConstructorDeclaration)) {
      findings.defaultConstructor.push(node.name?.getText() ?? 'default');
    }
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodSignature(node)) && node.questionToken) {
      if (!acceptsUndefined(ts.isMethodSignature(node) ? undefined : node.type)) findings.refuseUndefined.push(memberName(node));
      const option = ts.isInterfaceDeclaration(node.parent) && node.parent.name.text.endsWith('Options');
      if (option && !ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'default')) findings.noDefault.push(memberName(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  findings.unexported = topLevelNames(source).filter((name) => !exported.has(name));
  return findings;
}

/** Names the file declares at its top level (not what it imports). */
function topLevelNames(source: ts.SourceFile): string[] {
  return source.statements.flatMap((statement) => {
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText());
    if (ts.isImportDeclaration(statement)) return [];
    const name = ts.getNameOfDeclaration(statement as ts.DeclarationStatement);
    return name ? [name.getText()] : [];
  });
}

function isHidden(node: ts.ClassElement): boolean {
  return (ts.getCombinedModifierFlags(node as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

/** `Owner.member`, for a finding's line. */
function memberName(node: ts.Node): string {
  const name = ts.getNameOfDeclaration(node as ts.Declaration)?.getText() ?? node.getText();
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent) || ts.isTypeAliasDeclaration(parent)) {
      return `${parent.name?.getText() ?? 'default'}.${name}`;
    }
  }
  return name;
}

/** Whether a written type takes `undefined`: `unknown`, `any`, `undefined`, or a union with one of them. */
function acceptsUndefined(type: ts.TypeNode | undefined): boolean {
  if (!type) return false;
  if (ts.isParenthesizedTypeNode(type)) return acceptsUndefined(type.type);
  if (ts.isUnionTypeNode(type)) return type.types.some(acceptsUndefined);
  return [ts.SyntaxKind.UndefinedKeyword, ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.AnyKeyword].includes(type.kind);
}

/**
 * Lines of the file that send users where they cannot go: a source file's name (`provenance.ts`), a numbered
 * section of the API specification (which is not published), or a folder of this repository (`lib/`).
 */
export function privateReferences(text: string): string[] {
  const pattern = /\b[\w-]+\.[cm]?ts\b|\bspec(?:'s)?\s+(?:section\s+)?\d|\bsection\s+\d|\b(?:src|lib|internal)\//i;
  return text.split('\n').filter((line) => pattern.test(line.replace(/\bd\.c?ts\b/g, '')));
}

/** The checker of a program of `file` alone, and the symbols the module exports. */
function moduleExports(file: string): { checker: ts.TypeChecker; exports: ts.Symbol[] } {
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], noEmit: true };
  const program = ts.createProgram([file], options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file} is not a module`);
  return { checker, exports: checker.getExportsOfModule(module) };
}
