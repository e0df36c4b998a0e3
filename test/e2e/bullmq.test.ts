/**
 * `avatar-video/bullmq` as built and installed (test/setup/build.ts): reachable by `import` and `require` through
 * package.json's `exports`, loading nothing of bullmq or ioredis (an optional peer, used for its types only), and
 * sharing the main entry's error classes, so `instanceof` holds across the two. Its own QueueRateLimitError is an
 * AvatarVideoError of the main entry, and is matched across this entry's ESM and CommonJS builds.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const { dir: pkg } = await builtPackage();
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  work = await consumerFolder('bullmq-', closers);
});

/** Run `source` as `name` in the consumer folder and parse the JSON it prints. */
async function runInChild(name: string, source: string): Promise<Record<string, unknown>> {
  await writeFile(join(work, name), source);
  const { stdout } = await run(process.execPath, [join(work, name)], { cwd: work });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const PROBE = `
  let refused;
  try { videoJob({ key: 'a:b', audio_reference: '/a.wav', image_reference: '/i.png' }); } catch (error) { refused = error; }
  const job = videoJob({ key: '42', audio_reference: '/a.wav', image_reference: '/i.png' });
  const seen = {
    jobId: job.opts.jobId,
    sameClass: refused instanceof InvalidArgumentError && refused instanceof AvatarVideoError,
    processor: typeof createVideoProcessor,
    limiter: workerDefaults.limiter.max === Number.MAX_SAFE_INTEGER,
    rateLimitMessage: new QueueRateLimitError(1).message,
    rateLimitIsSdkError: new QueueRateLimitError(1) instanceof AvatarVideoError,
    acrossBuilds: [new QueueRateLimitError(1) instanceof otherBuild.QueueRateLimitError, new otherBuild.QueueRateLimitError(1) instanceof QueueRateLimitError],
  };`;
const EXPECTED = {
  jobId: 'video-42',
  sameClass: true,
  processor: 'function',
  limiter: true,
  rateLimitMessage: 'bullmq:rateLimitExceeded',
  rateLimitIsSdkError: true,
  acrossBuilds: [true, true],
};

describe('avatar-video/bullmq, built', () => {
  it('import: works, with the error classes of the main entry', async () => {
    const seen = await runInChild(
      'probe.mjs',
      `import { createRequire } from 'node:module';
      import { createVideoProcessor, QueueRateLimitError, videoJob, workerDefaults } from 'avatar-video/bullmq';
      import { AvatarVideoError, InvalidArgumentError } from 'avatar-video';
      const otherBuild = createRequire(import.meta.url)('avatar-video/bullmq');
      ${PROBE}
      console.log(JSON.stringify({ ...seen, resolved: import.meta.resolve('avatar-video/bullmq') }));`,
    );
    expect(seen).toMatchObject(EXPECTED);
    expect(seen.resolved).toBe(`file://${join(pkg, 'dist', 'bullmq', 'index.js')}`);
  });

  it('require: works, with the error classes of the main entry, and loads no module of bullmq or ioredis', async () => {
    const seen = await runInChild(
      'probe.cjs',
      `const { createVideoProcessor, QueueRateLimitError, videoJob, workerDefaults } = require('avatar-video/bullmq');
      const { AvatarVideoError, InvalidArgumentError } = require('avatar-video');
      (async () => {
      const otherBuild = await import('avatar-video/bullmq');
      ${PROBE}
      const peers = Object.keys(require.cache).filter((path) => /[\\\\/]node_modules[\\\\/](bullmq|ioredis)[\\\\/]/.test(path));
      console.log(JSON.stringify({ ...seen, peers, resolved: require.resolve('avatar-video/bullmq') }));
      })();`,
    );
    expect(seen).toMatchObject({ ...EXPECTED, peers: [] });
    expect(seen.resolved).toBe(join(pkg, 'dist', 'bullmq', 'index.cjs'));
  });

  it('neither build imports bullmq or ioredis', async () => {
    for (const file of ['index.js', 'index.cjs']) {
      const code = await readFile(join(pkg, 'dist', 'bullmq', file), 'utf8');
      expect(code).not.toMatch(/(from\s*|require\(\s*|import\(\s*)["'](bullmq|ioredis)["']/);
    }
  });
});
