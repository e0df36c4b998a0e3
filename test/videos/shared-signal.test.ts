/**
 * Many jobs under one AbortSignal add one 'abort' listener to it, not one per job: Node 20 warned
 * MaxListenersExceededWarning past ten (the README's `Promise.all` over 12 `generate` calls, a 12-row batch under a
 * signal, as the CLI runs one). Each run is a fresh process (helpers/shared-signal-child.ts), so the only warnings it
 * hears are the SDK's, on Node 20, 22 and 24; Node 22 and 24 do not warn for an AbortSignal, so the listeners the
 * signal held are counted too. Aborting still stops each of 1,000 jobs waiting at the limit, the gate or the poll.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { nodeBinary } from '../helpers/node-versions.js';
import { usable } from '../helpers/npm-tool.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../helpers/shared-signal-child.ts', import.meta.url));
const closers = useCleanup();

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 100 });
  closers.push(() => mock.close());
});

/** What the child saw of its three scenarios, on `node`. */
async function child(node: string) {
  const env = { ...process.env, AVATAR_VIDEO_API_KEY: mock.apiKey };
  const { stdout } = await run(node, ['--import', 'tsx', CHILD, mock.baseURL], { cwd: ROOT, env, timeout: 150_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe.each([20, 22, 24])('on Node %i, many jobs sharing one AbortSignal', (major) => {
  it('add one abort listener and no warning: 12 generate calls, a 12-row batch, 1,000 createAndWait calls, all of them stopped by an abort', {
    timeout: 180_000,
  }, async (context) => {
    const { path } = usable(context, await nodeBinary(major));
    const seen = await child(path);
    expect(seen.readme).toEqual({ completed: 12, aborted: 0, other: [], listeners: 1, warnings: [] });
    expect(seen.batch).toEqual({ completed: 12, failed: 0, listeners: 1, warnings: [] });
    // Aborted once 40 had completed (a job whose wait had already ended may still complete in the same turn): every
    // other job rejects with APIUserAbortError, and none is left holding a place or waiting at the gate.
    const { completed, aborted, ...rest } = seen.jobs;
    expect(completed).toBeGreaterThanOrEqual(40);
    expect(completed + aborted).toBe(1000);
    expect(rest).toEqual({ other: [], listeners: 1, running: 0, waiting: 0, warnings: [] });
  });
});
