import { isBuiltin } from 'node:module';

/** The modules built code imports, statically or not (esbuild starts each import statement on a line of its own). */
const IMPORTED =
  /^\s*import\s[^;]*?["']([^"']+)["'];?$|^\s*export\s[^;]*?from\s*["']([^"']+)["'];?$|\bimport\(\s*["']([^"']+)["']\s*\)|\brequire\(\s*["']([^"']+)["']\s*\)/gm;

/**
 * Node's modules (with or without `node:`) and undici that `code` imports: the web build (tsup.config.ts) and a Worker
 * bundled from it (test/e2e/workers.test.ts) must have none.
 */
export function nodeImports(code: string): string[] {
  const imported = [...code.matchAll(IMPORTED)].map((match) => match.slice(1).find((name) => name !== undefined) as string);
  return imported.filter((name) => isBuiltin(name) || name === 'undici');
}
