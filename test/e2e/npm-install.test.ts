/**
 * The tests' one `npm install` (test/helpers/npm-install.ts), against real npm: a registry that refuses the
 * connection is tried again, up to its tries; a package that does not exist is not, and its stderr says why.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCleanup } from '../helpers/fixture.js';
import { failedOnNetwork, NPM_TRIES, npmInstall } from '../helpers/npm-install.js';
import { freePort } from '../helpers/system-command.js';

const closers = useCleanup();
let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'avatar-npm-install-'));
  closers.push(() => rm(project, { recursive: true, force: true }));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'npm-install-check', version: '1.0.0' }));
});

describe('npmInstall', () => {
  it('tries a refused registry again, up to its tries, and gives npm its say', async () => {
    const registry = `http://127.0.0.1:${await freePort()}/`;
    const args = ['--registry', registry, '--fetch-retries=0', '--no-audit', '--no-fund', '--prefer-online', 'left-pad@1.3.0'];
    const done = await npmInstall(args, { cwd: project, timeout: 60_000 });
    expect(done.code).not.toBe(0);
    expect(done.tries).toBe(NPM_TRIES);
    expect(failedOnNetwork(done.stderr)).toBe(true);
    expect(done.stderr).toContain('ECONNREFUSED');
  }, 120_000);

  it('does not try a tarball that is not there again', async () => {
    const done = await npmInstall(['--no-audit', '--no-fund', join(project, 'missing-1.0.0.tgz')], { cwd: project, timeout: 60_000 });
    expect(done.code).not.toBe(0);
    expect(done.tries).toBe(1);
    expect(failedOnNetwork(done.stderr)).toBe(false);
    expect(done.stderr).toMatch(/ENOENT|missing-1\.0\.0\.tgz/);
  }, 120_000);
});

describe('failedOnNetwork', () => {
  it.each([
    ['npm error code ECONNRESET\nnpm error network aborted', true],
    ['npm error code ETIMEDOUT', true],
    ['npm error code EAI_AGAIN', true],
    ['npm error code E503\nnpm error 503 Service Unavailable', true],
    ['npm ERR! code ECONNRESET', true],
    ['npm error code E404\nnpm error 404 Not Found', false],
    ['npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree', false],
    ['npm error code ETARGET\nnpm error notarget No matching version', false],
    ['', false],
  ])('%j: %s', (stderr, network) => {
    expect(failedOnNetwork(stderr)).toBe(network);
  });
});
