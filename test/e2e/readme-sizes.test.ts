/**
 * The README's install figures against the package as packed and installed (test/setup/build.ts): the unpacked size
 * of `avatar-video` (what npm prints as "unpacked size": the bytes of the tarball's files), and the install's
 * packages and size (the package and its production dependencies, at the versions this repository installs; the same
 * install from the registry: `npx tsx bench/install-size.ts`). Each figure within TOLERANCE of the measured one, so a
 * build that grows fails here until the README says so.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built.js';
import { sizeOf } from '../helpers/file-size.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir: pkg } = await builtPackage();
const readme = await readFile(join(root, 'README.md'), 'utf8');

/** How far a README figure may be from the measured one (it is rounded, and a small change need not touch it). */
const TOLERANCE = 0.1;
/** MB as npm and bench/install-size.ts count them. */
const MB = 1e6;

/** The folders an install adds: the package and its production dependencies, at any depth. */
async function installed(from: string, found = new Map<string, string>()): Promise<Map<string, string>> {
  const manifest = JSON.parse(await readFile(join(from, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (found.has(name)) continue;
    const dir = join(root, 'node_modules', name);
    found.set(name, dir);
    await installed(dir, found);
  }
  return found;
}

/** The one figure the README gives by `pattern` (its first group, in MB or a count). */
function figure(pattern: RegExp): number {
  const matches = [...readme.matchAll(new RegExp(pattern, 'g'))];
  expect(matches, `one ${pattern} in README.md`).toHaveLength(1);
  return Number(matches[0]?.[1]);
}

describe("the README's install figures", () => {
  it('gives the unpacked size of the package', async () => {
    const claimed = figure(/`avatar-video` \(([\d.]+) MB unpacked/);
    const measured = (await sizeOf(pkg)) / MB;
    expect(Math.abs(claimed - measured) / measured, `README ${claimed} MB, measured ${measured.toFixed(2)} MB`).toBeLessThanOrEqual(
      TOLERANCE,
    );
  });

  it('gives the packages an install adds and their size', async () => {
    const dependencies = await installed(pkg);
    const measured = ((await sizeOf(pkg)) + (await Promise.all([...dependencies.values()].map(sizeOf))).reduce((a, b) => a + b, 0)) / MB;
    expect(figure(/(\d+) packages, about [\d.]+ MB/)).toBe(dependencies.size + 1);
    const claimed = figure(/\d+ packages, about ([\d.]+) MB/);
    expect(Math.abs(claimed - measured) / measured, `README ${claimed} MB, measured ${measured.toFixed(2)} MB`).toBeLessThanOrEqual(
      TOLERANCE,
    );
  });
});
