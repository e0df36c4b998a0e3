import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports or re-exports (type-only imports included), as written. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
}

const files = sourceFiles(SRC);
const name = (file: string) => relative(SRC, file);
const graph = new Map(
  files.map((file) => [
    name(file),
    specifiers(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => name(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))),
  ]),
);

function findCycle(): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('layers', () => {
  it('has no import cycle in src/, type-only imports included', () => {
    expect(findCycle()).toBeUndefined();
  });

  it('keeps lib/ and internal/ from importing the client or the resources', () => {
    const upward = [...graph].filter(
      ([file, deps]) => /^(lib|internal)\//.test(file) && deps.some((dep) => dep === 'client.ts' || dep.startsWith('resources/')),
    );
    expect(upward).toEqual([]);
  });

  it('keeps internal/ below lib/: nothing in internal/ imports lib/', () => {
    const upward = [...graph].filter(([file, deps]) => file.startsWith('internal/') && deps.some((dep) => dep.startsWith('lib/')));
    expect(upward).toEqual([]);
  });

  it('keeps lib/ off the HTTP path: its workflows take the endpoints port, never the transport or the send helpers', () => {
    const http = ['internal/transport.ts', 'internal/send.ts'];
    const reaching = [...graph].filter(([file, deps]) => file.startsWith('lib/') && deps.some((dep) => http.includes(dep)));
    expect(reaching).toEqual([]);
  });

  it('keeps bullmq/ on the public API: the main entry by its name, so the build holds one copy of each error class', () => {
    // Everything bullmq/ reaches by relative import is bundled into its entry: only pure rules of lib/ may be.
    const reached = new Set<string>();
    const visit = (node: string) => {
      if (reached.has(node)) return;
      reached.add(node);
      for (const next of graph.get(node) ?? []) visit(next);
    };
    visit('bullmq/index.ts');
    const bundled = [...reached].filter((file) => !file.startsWith('bullmq/'));
    expect(bundled.filter((file) => !file.startsWith('lib/') || (graph.get(file) ?? []).length > 0)).toEqual([]);
    expect([...graph].filter(([file, deps]) => !file.startsWith('bullmq/') && deps.some((dep) => dep.startsWith('bullmq/')))).toEqual([]);
  });

  it('imports bullmq, an optional peer, for its types only', () => {
    const runtime = files
      .filter((file) => /^\s*import\s+(?!type\b)[^;]*?from\s+['"]bullmq['"]/m.test(readFileSync(file, 'utf8')))
      .map(name);
    expect(runtime).toEqual([]);
  });

  it('speaks HTTP only through undici: nothing outside src/testing imports node:net, node:tls or node:http', () => {
    const raw = files
      .filter((file) => !name(file).startsWith('testing/'))
      .filter((file) => specifiers(file).some((spec) => /^(node:)?(net|tls|http|https|http2)$/.test(spec)))
      .map(name);
    expect(raw).toEqual([]);
  });
});
