/**
 * `avatar-video/webhooks` as built and installed (test/setup/build.ts): no `node:` module in either build; reachable
 * by `import` and `require` through package.json's `exports`, each verifying a delivery signed as the SDK signs;
 * `instanceof` holding across its two builds and with the main entry's `AvatarVideoError`; and in Cloudflare's
 * runtime, a Worker bundled from the installed package as wrangler bundles it (the workerd, worker and browser
 * conditions) verifying deliveries in workerd (miniflare), from the body as text and as an ArrayBuffer.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeImports } from '../../scripts/node-imports.js';
import type { Video } from '../../src/index.js';
import { signedEvent } from '../../src/testing/index.js';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { bundleWorker } from '../helpers/worker-bundle.js';

const run = promisify(execFile);
const { dir: pkg } = await builtPackage();
const closers = useCleanup();
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const video: Video = { id: 'vid_built', status: 'COMPLETE', created_at: 1_760_000_000, progress: 100 };
let work: string;

beforeAll(async () => {
  work = await consumerFolder('webhooks-', closers);
});

/** Run `source` as `name` in the consumer folder with `args`, and parse the JSON it prints. */
async function runInChild(name: string, source: string, args: string[]): Promise<Record<string, unknown>> {
  await writeFile(join(work, name), source);
  const { stdout } = await run(process.execPath, [join(work, name), ...args], { cwd: work });
  return JSON.parse(stdout) as Record<string, unknown>;
}

// Runs in the child with `esm`, `cjs` (the two builds of avatar-video/webhooks) and `main`, `cjsMain` (the main entry's).
const PROBE = `
  const [body, headers, secret] = JSON.parse(process.argv[2]);
  const refused = (entry) => { try { entry.verifyWebhook(body, headers, 'whsec_' + Buffer.from('another').toString('base64')); } catch (error) { return error; } };
  const [fromEsm, fromCjs] = [refused(esm), refused(cjs)];
  const seen = {
    verified: [esm.verifyWebhook(body, headers, secret).id, cjs.verifyWebhook(Buffer.from(body), headers, secret).id],
    reasons: [fromEsm.reason, fromCjs.reason],
    twoCopies: esm.WebhookVerificationError !== cjs.WebhookVerificationError,
    acrossBuilds: [fromEsm instanceof cjs.WebhookVerificationError, fromCjs instanceof esm.WebhookVerificationError],
    ownBuild: [fromEsm instanceof esm.WebhookVerificationError, fromCjs instanceof cjs.WebhookVerificationError],
    sdkErrors: [fromEsm instanceof main.AvatarVideoError, fromCjs instanceof cjsMain.AvatarVideoError, fromEsm instanceof cjsMain.AvatarVideoError],
    unrelated: [fromEsm instanceof main.VideoFailedError, new main.InvalidArgumentError('x', 'bad') instanceof cjs.WebhookVerificationError],
    values: [Object.keys(esm).sort(), Object.keys(cjs).sort()],
  };`;
const EXPECTED = {
  reasons: ['bad_signature', 'bad_signature'],
  twoCopies: true,
  acrossBuilds: [true, true],
  ownBuild: [true, true],
  sdkErrors: [true, true, true],
  unrelated: [false, false],
  values: [
    ['WebhookVerificationError', 'verifyWebhook'],
    ['WebhookVerificationError', 'verifyWebhook'],
  ],
};

describe('avatar-video/webhooks, built', () => {
  it('imports no node: module and no undici, in its ESM or its CommonJS build', async () => {
    for (const file of ['dist/webhooks/index.js', 'dist/webhooks/index.cjs']) {
      const code = await readFile(join(pkg, file), 'utf8');
      expect(code, file).toContain('standardwebhooks');
      expect(nodeImports(code), file).toEqual([]);
    }
  });

  it('import: verifies a signed delivery; its error is one class across its builds and an AvatarVideoError', async () => {
    const { body, headers, event } = await signedEvent(video, secret);
    const seen = await runInChild(
      'probe.mjs',
      `import { createRequire } from 'node:module';
      import * as esm from 'avatar-video/webhooks';
      import * as main from 'avatar-video';
      const require = createRequire(import.meta.url);
      const cjs = require('avatar-video/webhooks');
      const cjsMain = require('avatar-video');
      ${PROBE}
      console.log(JSON.stringify({ ...seen, resolved: import.meta.resolve('avatar-video/webhooks') }));`,
      [JSON.stringify([body, headers, secret])],
    );
    expect(seen).toMatchObject({ ...EXPECTED, verified: [event.id, event.id] });
    expect(seen.resolved).toBe(`file://${join(pkg, 'dist', 'webhooks', 'index.js')}`);
  });

  it('require: the same, from a CommonJS module', async () => {
    const { body, headers, event } = await signedEvent(video, secret);
    const seen = await runInChild(
      'probe.cjs',
      `const cjs = require('avatar-video/webhooks');
      const cjsMain = require('avatar-video');
      (async () => {
      const [esm, main] = [await import('avatar-video/webhooks'), await import('avatar-video')];
      ${PROBE}
      console.log(JSON.stringify({ ...seen, resolved: require.resolve('avatar-video/webhooks') }));
      })();`,
      [JSON.stringify([body, headers, secret])],
    );
    expect(seen).toMatchObject({ ...EXPECTED, verified: [event.id, event.id] });
    expect(seen.resolved).toBe(join(pkg, 'dist', 'webhooks', 'index.cjs'));
  });
});

/** A receiver's Worker: the event's id and type for a delivery that verifies, 400 and the reason for one that does not. */
const WORKER = `
import { AvatarVideoError } from 'avatar-video';
import { verifyWebhook, WebhookVerificationError } from 'avatar-video/webhooks';

export default {
  async fetch(request, env) {
    try {
      const body = new URL(request.url).pathname === '/bytes' ? await request.arrayBuffer() : await request.text();
      const event = verifyWebhook(body, request.headers, env.WEBHOOK_SECRET);
      return Response.json({ id: event.id, type: event.type, videoId: event.data.id });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      return Response.json({ reason: error.reason, sdkError: error instanceof AvatarVideoError }, { status: 400 });
    }
  },
};
`;

describe('avatar-video/webhooks in workerd', () => {
  let bundled: string;
  let worker: Miniflare;

  beforeAll(async () => {
    await writeFile(join(work, 'worker.mjs'), WORKER);
    // A tsconfig of the Worker's own: the folder sits inside this repository, whose tsconfig maps the package's
    // names to its sources.
    await writeFile(join(work, 'tsconfig.json'), '{}');
    bundled = await bundleWorker(work, 'worker.mjs', join(work, 'tsconfig.json'));
    worker = new Miniflare({
      modules: true,
      script: bundled,
      compatibilityDate: '2026-07-01',
      bindings: { WEBHOOK_SECRET: secret },
    });
    closers.push(() => worker.dispose());
  }, 120_000);

  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const response = await worker.dispatchFetch(`http://receiver.test${path}`, { method: 'POST', body, headers });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('bundles with no node: module and no undici, standardwebhooks inside', () => {
    expect(bundled).toContain('webhook-signature');
    expect(nodeImports(bundled)).toEqual([]);
  });

  it('verifies a signed delivery from the body as text and as an ArrayBuffer of the Worker', { timeout: 60_000 }, async () => {
    const { body, headers, event } = await signedEvent(video, secret);
    const expected = { status: 200, json: { id: event.id, type: 'video.completed', videoId: 'vid_built' } };
    expect(await post('/text', body, headers)).toEqual(expected);
    expect(await post('/bytes', body, headers)).toEqual(expected);
  });

  it('refuses an altered body, another secret and a stale delivery, with the error class of the main entry', {
    timeout: 60_000,
  }, async () => {
    const { body, headers } = await signedEvent(video, secret);
    const other = await signedEvent(video, `whsec_${randomBytes(32).toString('base64')}`);
    const stale = await signedEvent(video, secret, undefined, { at: new Date(Date.now() - 3_600_000) });
    expect(await post('/text', body.replace('COMPLETE', 'FAILED'), headers)).toEqual({
      status: 400,
      json: { reason: 'bad_signature', sdkError: true },
    });
    expect((await post('/bytes', other.body, other.headers)).json).toEqual({ reason: 'bad_signature', sdkError: true });
    expect((await post('/text', stale.body, stale.headers)).json).toEqual({ reason: 'stale_timestamp', sdkError: true });
  });
});
