import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// One name, one meaning: every option of every public method is in docs/options.md, and its TSDoc states its default.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRIES = [
  'src/index.ts',
  'src/media/index.ts',
  'src/bullmq/index.ts',
  'src/testing/index.ts',
  'src/proxy/index.ts',
  'src/webhooks/index.ts',
  'src/ai-sdk/index.ts',
].map((entry) => resolve(ROOT, entry));
const DOC = readFileSync(resolve(ROOT, 'docs/options.md'), 'utf8');

const program = ts.createProgram(ENTRIES, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

/**
 * The option types of the published entries: every exported type whose name ends in Options (or is ClientOptions),
 * and those named under an exported namespace (`AvatarVideo.PlanOptions`: the main entry is at its cap of names).
 */
function optionTypes(): Map<string, ts.Type> {
  const found = new Map<string, ts.Type>();
  const take = (exports: ts.Symbol[]) => {
    for (const exported of exports) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!/Options$/.test(exported.name) || !(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
      found.set(exported.name, checker.getDeclaredTypeOfSymbol(symbol));
    }
  };
  for (const entry of ENTRIES) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile) as ts.Symbol;
    const exports = checker.getExportsOfModule(module);
    take(exports);
    for (const exported of exports) if (exported.flags & ts.SymbolFlags.Namespace) take(checker.getExportsOfModule(exported));
  }
  return found;
}

/** `Type.option` for each option of the public option types, with whether its TSDoc has an `@default`. */
function options(): Array<{ where: string; name: string; hasDefault: boolean; optional: boolean }> {
  return [...optionTypes()].flatMap(([typeName, type]) =>
    checker.getPropertiesOfType(type).map((property) => ({
      where: `${typeName}.${property.name}`,
      name: property.name,
      hasDefault: property.getJsDocTags(checker).some((tag) => tag.name === 'default'),
      optional: (property.flags & ts.SymbolFlags.Optional) !== 0,
    })),
  );
}

describe('options reference', () => {
  const all = options();

  it('finds the option types of every entry', () => {
    const types = new Set(all.map((o) => o.where.split('.')[0]));
    for (const type of [
      'ClientOptions',
      'GenerateOptions',
      'GenerateBatchOptions',
      'ProbeOptions',
      'VideoProcessorOptions',
      'ProxyOptions',
      'PlanOptions',
    ]) {
      expect(types).toContain(type);
    }
  });

  it('lists every option name in docs/options.md', () => {
    // Named in backticks, alone or as the head of a call or a path: `signal`, `onProgress(video, …)`, `limits.maxAudioSeconds`.
    const missing = [...new Set(all.map((o) => o.name))].filter((name) => !new RegExp(`\`${name}[\`(.]`).test(DOC));
    expect(missing).toEqual([]);
  });

  it('states a default in the TSDoc of every optional option', () => {
    expect(all.filter((o) => o.optional && !o.hasDefault).map((o) => o.where)).toEqual([]);
  });
});
