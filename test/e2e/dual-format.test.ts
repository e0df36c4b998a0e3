/**
 * An app that mixes ESM and CommonJS (an ESM test of a CommonJS module, say) loads both builds of the package:
 * dist/index.js and dist/index.cjs, each with classes of its own. `instanceof` must hold across them for every
 * error class the package exports, and keep the classes' relations. One child process loads both, by name, from
 * the consumer folder of this run's build (test/setup/build.ts).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
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
  work = await consumerFolder('dual-format-', closers);
});

// Runs in the child: makes one error of every exported class with each build, then asks every class of the other
// build (and of its own) about it. Within one build `instanceof` is plain prototype identity: that is the expected
// answer across builds too.
const PROBE = `
import { createRequire } from 'node:module';
import * as esm from 'avatar-video';
const require = createRequire(import.meta.url);
const cjs = require('avatar-video');

const video = { id: 'vid_1', status: 'FAILED', progress: null, error: { code: 'rate_limit', message: 'slow' } };
const api = { status: 429, message: 'slow down', headers: {}, body: null };
const made = {
  ResponseValidationError: (C) => new C({ message: 'bad', body: null, requestId: undefined, problems: [] }),
  ResponseTooLargeError: (C) => new C('big', { limit: 1, requestId: undefined }),
  InvalidArgumentError: (C) => new C('timeout', 'bad'),
  OutputPathError: (C) => new C('/x.mp4', 'invalid', 'bad'),
  MediaValidationError: (C) => new C([]),
  BatchInputError: (C) => new C([]),
  VideoFailedError: (C) => new C(video),
  VideoCancelledError: (C) => new C(video),
  VideoNotReadyError: (C) => new C(video),
  WaitTimeoutError: (C) => new C('vid_1', undefined, 1),
  SegmentFailedError: (C) => new C({ index: 0, startSeconds: 0, durationSeconds: 1, attempts: 1, error: null }, '/w', new Error('c')),
  DownloadIntegrityError: (C) => new C({ reason: 'bad', videoId: 'vid_1', requestId: undefined }),
  JoinError: (C) => new C('a.mp4', 'bad'),
};
const make = (C) => (made[C.name] ?? ((K) => (K.prototype instanceof esm.APIError ? new K(api) : new K('message'))))(C);

const names = Object.keys(esm).filter((name) => typeof esm[name] === 'function' && esm[name].prototype instanceof Error).sort();
const mismatches = [];
for (const [mine, theirs] of [[esm, cjs], [cjs, esm]]) {
  for (const made of names) {
    const error = make(mine[made]);
    for (const asked of names) {
      const expected = Object.prototype.isPrototypeOf.call(mine[asked].prototype, error);
      if ((error instanceof theirs[asked]) !== expected) mismatches.push(made + ' instanceof other ' + asked + ' should be ' + expected);
      if ((error instanceof mine[asked]) !== expected) mismatches.push(made + ' instanceof own ' + asked + ' should be ' + expected);
    }
  }
}

class VideoFailedError extends Error {}
class MyFailure extends esm.VideoFailedError {}
const limited = new cjs.RateLimitError(api);
console.log(JSON.stringify({
  names,
  cjsNames: Object.keys(cjs).filter((name) => typeof cjs[name] === 'function' && cjs[name].prototype instanceof Error).sort(),
  resolved: [import.meta.resolve('avatar-video'), require.resolve('avatar-video')],
  twoCopies: esm.VideoFailedError !== cjs.VideoFailedError && esm.AvatarVideoError !== cjs.AvatarVideoError,
  mismatches,
  rateLimit: [limited instanceof esm.APIError, limited instanceof esm.AvatarVideoError, limited instanceof esm.VideoFailedError],
  unrelated: new VideoFailedError('x') instanceof cjs.VideoFailedError,
  mine: [new MyFailure(video) instanceof cjs.VideoFailedError, new cjs.VideoFailedError(video) instanceof MyFailure],
}));
`;

describe('ESM and CommonJS builds in one process', () => {
  it('instanceof holds across the two copies for every exported error class, relations kept', async () => {
    const file = join(work, 'probe.mjs');
    await writeFile(file, PROBE);
    const { stdout } = await run(process.execPath, [file], { cwd: work });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    // Really the two files of the build, two copies of every class.
    expect(seen.resolved).toEqual([`file://${join(pkg, 'dist', 'index.js')}`, join(pkg, 'dist', 'index.cjs')]);
    expect(seen.twoCopies).toBe(true);
    expect(seen.names).toEqual(seen.cjsNames);
    expect(seen.names).toContain('VideoFailedError');
    expect((seen.names as string[]).length).toBeGreaterThan(25);
    expect(seen.mismatches).toEqual([]);
    expect(seen.rateLimit).toEqual([true, true, false]);
    expect(seen.unrelated).toBe(false);
    // A subclass of the user's own: an SDK error to the other build, and not matched by the other build's errors.
    expect(seen.mine).toEqual([true, false]);
  });
});
