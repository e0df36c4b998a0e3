/**
 * The tests mirror the surface: each test file sits in the folder of the public area it exercises, and only the
 * tests of pure policies (and the few of internals/, whose mechanism no public method can reach at the moment it
 * matters) import from src/internal/ or src/lib/. Everything else tests what a user can call, through its entry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST = join(import.meta.dirname, '..');

/** One folder per public area, one for the pure policies, one for internals that no public method can reach. */
const AREAS = [
  'videos',
  'web',
  'media',
  'mock',
  'cli',
  'mcp',
  'bullmq',
  'proxy',
  'webhooks',
  'networks',
  'ai-sdk',
  'e2e',
  'policies',
  'internals',
];
/** The folders whose tests may import src/internal/ and src/lib/; every other area is a surface, tested through its entry. */
const MAY_IMPORT_INTERNALS = ['policies', 'internals'];
/** Every .ts file under test/ apart from the fixtures, as a path relative to test/ with forward slashes. */
function testTree(folder = TEST): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testTree(path);
    return entry.name.endsWith('.ts') ? [relative(TEST, path).replaceAll('\\', '/')] : [];
  });
}

/** Whether a file names a module of src/mcp/ in any string: the MCP server's tests, which sit in mcp/. */
const reachesMcp = (file: string) => /['"`][^'"`\s]*\bsrc\/mcp\/[^'"`\s]*['"`]/.test(readFileSync(join(TEST, file), 'utf8'));

/** Whether a file names a module of src/internal/ in any string: an import, a vi.mock, a child's script. */
const reachesInternals = (file: string) => /['"`][^'"`\s]*\bsrc\/internal\/[^'"`\s]*['"`]/.test(readFileSync(join(TEST, file), 'utf8'));

/** Whether a file names a module of src/lib/ in any string: what a surface test takes from the public entry instead. */
const reachesLib = (file: string) => /['"`][^'"`\s]*\bsrc\/lib\/[^'"`\s]*['"`]/.test(readFileSync(join(TEST, file), 'utf8'));

const files = testTree();
const tests = files.filter((file) => file.endsWith('.test.ts'));

describe('the layout of test/', () => {
  it('finds the tests', () => {
    expect(tests.length).toBeGreaterThan(50);
  });

  it('keeps every test file directly in the folder of one area', () => {
    const misplaced = tests.filter((file) => {
      const [area, name, ...deeper] = file.split('/');
      return !AREAS.includes(area as string) || name === undefined || deeper.length > 0;
    });
    expect(misplaced).toEqual([]);
  });

  it("keeps the MCP server's tests in mcp/; those of the built command (over stdio, HTTP, an inspector) in e2e/, which builds it", () => {
    const outside = tests.filter((file) => file.split('/')[0] !== 'mcp' && reachesMcp(file));
    expect(outside).toEqual([]);
    expect(tests.filter((file) => file.startsWith('mcp/')).length).toBeGreaterThan(0);
  });

  it('lets only the policies (and internals/) import src/internal/, helpers included', () => {
    const reaching = files.filter((file) => !MAY_IMPORT_INTERNALS.includes(file.split('/')[0] as string) && reachesInternals(file));
    expect(reaching).toEqual([]);
  });

  it('lets only the policies (and internals/) import src/lib/: a surface test takes what it needs from the public entry', () => {
    const reaching = files.filter((file) => !MAY_IMPORT_INTERNALS.includes(file.split('/')[0] as string) && reachesLib(file));
    expect(reaching).toEqual([]);
  });
});
