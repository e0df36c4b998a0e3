/**
 * The Node version policy says the same in each place it is written: the README's table (under Runtimes, "Node
 * versions"), package.json's `engines`, and the Node lines `.ci/run` tests (the whole suite on its own Node and on
 * those it installs; users' projects on each line, test/e2e/mock-matrix.test.ts). A line whose support ends at a
 * named release must be gone from both the table and `engines` once package.json reaches that release.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const README = read('README.md');
const PACKAGE = JSON.parse(read('package.json')) as { version: string; engines: { node: string } };

/** The README's "Node versions" section, up to the next heading. */
function policySection(): string {
  const start = README.indexOf('\n### Node versions\n');
  expect(start, 'README has a "### Node versions" section').toBeGreaterThan(-1);
  const end = README.indexOf('\n#', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

interface Line {
  major: number;
  /** The lowest version of the line supported, when the row names one ("20, from 20.18.1"). */
  floor: string | undefined;
  /** The release that drops the line, when the row names one ("until the next breaking release, 0.2.0"). */
  droppedIn: string | undefined;
  endOfLife: string;
}

/** The table's rows: `| 20, from 20.18.1 | until the next breaking release, 0.2.0 | reached on 30 April 2026 |`. */
function policyLines(): Line[] {
  const rows = policySection()
    .split('\n')
    .filter((row) => /^\|\s*\d/.test(row));
  return rows.map((row) => {
    const [node = '', support = '', endOfLife = ''] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    return {
      major: Number(/^(\d+)/.exec(node)?.[1]),
      floor: /from (\d+\.\d+\.\d+)/.exec(node)?.[1],
      droppedIn: /until the next breaking release, (\d+\.\d+\.\d+)/.exec(support)?.[1],
      endOfLife,
    };
  });
}

/** The Node majors `.ci/run` runs tests on: its own Node (named in its header) and every one it installs. */
function ciMajors(): number[] {
  const script = read('.ci/run');
  const own = /test \(Node (\d+) with coverage/.exec(script)?.[1];
  const installed = [...script.matchAll(/^install_node (\d+)$/gm)].map((match) => match[1]);
  return [own, ...installed].map(Number).sort((a, b) => a - b);
}

/** The Node majors the users' projects run on in test/e2e/mock-matrix.test.ts. */
function matrixMajors(): number[] {
  const list = /const NODES = \[([\d,\s]+)\]/.exec(read('test/e2e/mock-matrix.test.ts'))?.[1] ?? '';
  return list
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
}

const parts = (version: string) => version.split('.').map(Number) as [number, number, number];

/** Whether `release` breaks `current` under semver: a higher major, or in 0.x a higher minor. */
function isBreaking(current: string, release: string): boolean {
  const [major, minor] = parts(current);
  const [toMajor, toMinor] = parts(release);
  return toMajor > major || (major === 0 && toMajor === 0 && toMinor > minor);
}

describe('the Node version policy', () => {
  it('reads the README table: 20 (from 20.18.1), 22 and 24', () => {
    const lines = policyLines();
    expect(lines.map((line) => line.major)).toEqual([20, 22, 24]);
    expect(lines[0]?.floor).toBe('20.18.1');
  });

  it('lists the same Node lines as .ci/run tests and as the users-project matrix runs', () => {
    const majors = policyLines().map((line) => line.major);
    expect(ciMajors()).toEqual(majors);
    expect(matrixMajors()).toEqual(majors);
  });

  it("keeps engines a floor at the table's lowest line, and every 'Node x.y.z or newer' in the README at that floor", () => {
    const lines = policyLines();
    const floor = /^>=(\d+\.\d+\.\d+)$/.exec(PACKAGE.engines.node)?.[1];
    expect(floor, `engines.node ${PACKAGE.engines.node} is one floor, >=x.y.z`).toBeDefined();
    expect(floor).toBe(lines[0]?.floor);
    expect(Number(floor?.split('.')[0])).toBe(Math.min(...lines.map((line) => line.major)));
    const stated = [...README.matchAll(/Node (\d+\.\d+\.\d+) or newer/g)].map((match) => match[1]);
    expect(stated.length).toBeGreaterThan(0);
    expect(new Set(stated)).toEqual(new Set([floor]));
  });

  it('names the tested lines alike wherever the README says "tested on"', () => {
    const majors = policyLines().map((line) => line.major);
    const claims = [...README.matchAll(/tested on ((?:\d+(?:, | and )?)+)/g)].map((match) => match[1] as string);
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) expect(claim.split(/, | and /).map(Number)).toEqual(majors);
  });

  it('says a line past its end of life goes in a named breaking release, which package.json has not reached', () => {
    const lines = policyLines();
    const twenty = lines.find((line) => line.major === 20);
    if (twenty) expect(twenty.endOfLife).toBe('reached on 30 April 2026');
    const past = lines.filter((line) => line.endOfLife.startsWith('reached'));
    for (const line of past) {
      expect(line.droppedIn, `Node ${line.major}'s row names the release that drops it`).toBeDefined();
      // At that release the line must be gone from the table and from engines: the promise is kept, not left standing.
      expect(isBreaking(PACKAGE.version, line.droppedIn as string), `package.json ${PACKAGE.version} is before ${line.droppedIn}`).toBe(
        true,
      );
    }
  });

  it('tells a breaking release under semver, 0.x minors included', () => {
    expect(isBreaking('0.1.0', '0.2.0')).toBe(true);
    expect(isBreaking('0.1.5', '0.1.6')).toBe(false);
    expect(isBreaking('0.2.0', '0.2.0')).toBe(false);
    expect(isBreaking('0.9.0', '1.0.0')).toBe(true);
    expect(isBreaking('1.4.0', '1.9.0')).toBe(false);
    expect(isBreaking('1.4.0', '2.0.0')).toBe(true);
  });
});
