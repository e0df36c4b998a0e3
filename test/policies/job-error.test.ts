/**
 * How an error thrown after a create names its job (lib/job-error.ts): the id, and the call that goes on, added
 * once. That every such error of a public method carries them is test/videos/job-not-billed.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { APIUserAbortError } from '../../src/index.js';
import { messageWithoutAdvice, namingJob } from '../../src/lib/job-error.js';

describe('namingJob', () => {
  it('adds the advice once, however many layers pass the error on', () => {
    const error = namingJob(namingJob(new APIUserAbortError('Wait was aborted.'), 'vid_1', 'Go on.'), 'vid_1', 'Go on.');
    expect(error.message).toBe('Wait was aborted. Go on.');
  });

  it('shows the advice once in a stack not read before (V8 writes it at first read, with the message of then)', () => {
    const named = namingJob(new APIUserAbortError('Wait was aborted.'), 'vid_1', 'Go on.');
    expect(named.stack?.split('\n')[0]).toBe('APIUserAbortError: Wait was aborted. Go on.');
  });

  it('keeps the first job named, and shows the advice in a stack already read', () => {
    const error = new APIUserAbortError('Wait was aborted');
    expect(error.stack).not.toContain('Go on.');
    const named = namingJob(namingJob(error, 'vid_1'), 'vid_2', 'Go on.');
    expect(named.videoId).toBe('vid_1');
    expect(named.message).toBe('Wait was aborted. Go on.');
    expect(named.stack).toContain('Wait was aborted. Go on.');
    expect(messageWithoutAdvice(named)).toBe('Wait was aborted');
  });
});
