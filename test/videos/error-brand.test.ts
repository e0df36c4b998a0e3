/**
 * `instanceof` across copies of the package (src/errors.ts, the brand): an app mixing ESM and CommonJS loads both
 * builds, each with classes of its own. A second copy of the sources stands in for the other build here; the
 * built package's two formats meet in test/e2e/dual-format.test.ts.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as bullmqErrors from '../../src/bullmq/errors.js';
import * as errors from '../../src/errors.js';
import type { Video } from '../../src/index.js';

// A query makes vite load the module afresh: the same source, other classes, as the other build's would be.
const SECOND_COPY = '../../src/errors.js?second-copy';
const other = (await import(/* @vite-ignore */ SECOND_COPY)) as typeof errors;
// avatar-video/bullmq's own error class, and another copy of it, as that entry's other build would hold.
const BULLMQ_SECOND_COPY = '../../src/bullmq/errors.js?second-copy';
const otherBullmq = (await import(/* @vite-ignore */ BULLMQ_SECOND_COPY)) as typeof bullmqErrors;
const BRAND = Symbol.for('avatar-video.error');

const failed: Video = { id: 'vid_1', status: 'FAILED', progress: null, error: { code: 'boom', message: 'no' } } as unknown as Video;
const apiInit = { status: 429, message: 'slow down', headers: {}, body: null };

/** Every error class errors.ts and bullmq/errors.ts export, by name. */
const errorClasses = Object.entries({ ...errors, ...bullmqErrors }).filter(
  (entry): entry is [string, typeof errors.AvatarVideoError] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

describe('the brand of SDK errors', () => {
  it('is on every exported error class, under the name it is exported as', () => {
    expect(errorClasses.length).toBeGreaterThan(25);
    for (const [name, errorClass] of errorClasses) {
      expect(Object.getOwnPropertyDescriptor(errorClass.prototype, BRAND), name).toMatchObject({ value: name, enumerable: false });
    }
  });

  it('makes instanceof hold for errors of the other copy, in both directions', () => {
    expect(other.VideoFailedError).not.toBe(errors.VideoFailedError);
    expect(new other.VideoFailedError(failed)).toBeInstanceOf(errors.VideoFailedError);
    expect(new errors.VideoFailedError(failed)).toBeInstanceOf(other.VideoFailedError);
    expect(new other.InvalidArgumentError('timeout', 'bad')).toBeInstanceOf(errors.AvatarVideoError);
  });

  it("holds for avatar-video/bullmq's QueueRateLimitError across copies, an AvatarVideoError and no other SDK class", () => {
    expect(otherBullmq.QueueRateLimitError).not.toBe(bullmqErrors.QueueRateLimitError);
    const limited = new otherBullmq.QueueRateLimitError(5_000);
    expect(limited).toBeInstanceOf(bullmqErrors.QueueRateLimitError);
    expect(new bullmqErrors.QueueRateLimitError(1)).toBeInstanceOf(otherBullmq.QueueRateLimitError);
    expect(limited).toBeInstanceOf(errors.AvatarVideoError);
    expect(limited).toBeInstanceOf(other.AvatarVideoError);
    expect(limited).not.toBeInstanceOf(errors.RateLimitError);
    expect(new other.RateLimitError(apiInit)).not.toBeInstanceOf(bullmqErrors.QueueRateLimitError);
  });

  it('keeps subclass relations: a RateLimitError is an APIError and an AvatarVideoError, and nothing else', () => {
    const limited = new other.RateLimitError(apiInit);
    expect(limited).toBeInstanceOf(errors.RateLimitError);
    expect(limited).toBeInstanceOf(errors.APIError);
    expect(limited).toBeInstanceOf(errors.AvatarVideoError);
    expect(limited).toBeInstanceOf(Error);
    expect(limited).not.toBeInstanceOf(errors.VideoFailedError);
    expect(limited).not.toBeInstanceOf(errors.InternalServerError);
    expect(new other.APIError(apiInit)).not.toBeInstanceOf(errors.RateLimitError);
    expect(new other.APIConnectionTimeoutError()).toBeInstanceOf(errors.APIConnectionError);
    expect(new other.APIConnectionError()).not.toBeInstanceOf(errors.APIConnectionTimeoutError);
  });

  it('is false for an unrelated class of the same name, a plain error and values that are not objects', () => {
    class VideoFailedError extends Error {}
    expect(new VideoFailedError('x')).not.toBeInstanceOf(errors.VideoFailedError);
    expect(new Error('x')).not.toBeInstanceOf(errors.AvatarVideoError);
    // A brand on the object itself is not on its prototype chain: not an SDK error.
    expect(Object.assign(new Error('x'), { [BRAND]: 'AvatarVideoError' })).not.toBeInstanceOf(errors.AvatarVideoError);
    for (const value of [null, undefined, 'AvatarVideoError', 42] as unknown[])
      expect(value instanceof errors.AvatarVideoError).toBe(false);
  });

  it('leaves a subclass of your own to its prototype, and matches it as the SDK class it extends', () => {
    class JobFailed extends errors.VideoFailedError {}
    const mine = new JobFailed(failed);
    expect(mine).toBeInstanceOf(JobFailed);
    expect(mine).toBeInstanceOf(errors.VideoFailedError);
    expect(mine).toBeInstanceOf(other.VideoFailedError);
    expect(mine).toBeInstanceOf(other.AvatarVideoError);
    expect(new errors.VideoFailedError(failed)).not.toBeInstanceOf(JobFailed);
    expect(new other.VideoFailedError(failed)).not.toBeInstanceOf(JobFailed);
  });

  it('adds nothing to an error itself: not in its keys, JSON or util.inspect', () => {
    const error = new errors.InvalidArgumentError('timeout', 'timeout must be a number');
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(Object.keys(error)).toEqual(['name', 'argument']);
    expect(inspect(error)).not.toContain('avatar-video.error');
  });
});
