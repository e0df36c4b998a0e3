/**
 * The SDK leaves process-wide state alone: its first requests (a create, a retrieve) load undici, whose module installs
 * an Agent as the global dispatcher when none is set, and Node 20's and 22's own fetch then send with it and refuse a
 * Blob or bytes body with an explicit content-length (UND_ERR_INVALID_ARG). Each run is a fresh process
 * (helpers/global-dispatcher-child.ts) on Node 20, 22 and 24, since this one's undici may be loaded already.
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
const CHILD = fileURLToPath(new URL('../helpers/global-dispatcher-child.ts', import.meta.url));
const closers = useCleanup();

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 100 });
  closers.push(() => mock.close());
});

/** What the child saw after the SDK's first requests, then `scenario`, on `node`. */
async function child(node: string, scenario: 'fetch' | 'undici') {
  const env = { ...process.env, AVATAR_VIDEO_API_KEY: mock.apiKey };
  const { stdout } = await run(node, ['--import', 'tsx', CHILD, scenario, mock.baseURL], { cwd: ROOT, env, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe.each([20, 22, 24])('on Node %i, after the SDK sent its first requests', (major) => {
  it("the global dispatcher is as it was, and Node's own fetch POSTs a Blob and bytes with an explicit content-length", async (context) => {
    const { path } = usable(context, await nodeBinary(major));
    expect(await child(path, 'fetch')).toEqual({
      unsetBefore: true,
      retrieved: true,
      untouched: true,
      sent: { blob: 'received 5', bytes: 'received 5' },
    });
  });

  it("the application's own require('undici') still sends through undici's default dispatcher", async (context) => {
    const { path } = usable(context, await nodeBinary(major));
    expect(await child(path, 'undici')).toEqual({
      unsetBefore: true,
      retrieved: true,
      untouched: true,
      sent: { blob: 'received 5', bytes: 'received 5' },
    });
  });
});
