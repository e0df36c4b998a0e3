import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, VideoFailedError, WaitTimeoutError } from '../../src/errors.js';
import { unsent } from '../../src/internal/retry.js';
import { describeItemError } from '../../src/lib/batch/item-error.js';
import type { Video } from '../../src/schemas.js';

const video = (patch: Partial<Video>) =>
  ({ id: 'vid_9', object: 'video', status: 'PROCESSING', created_at: 0, progress: 40, video_id: 'vid_9', ...patch }) as Video;

describe('describeItemError (a failed item in the summary and report.csv)', () => {
  it('a failed job: its code, and how many jobs were tried when more than one', () => {
    const error = new VideoFailedError(video({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'busy' } }));
    expect(describeItemError(error, 'vid_9', 3)).toEqual({ code: 'rate_limit_exceeded', message: `${error.message} (3 jobs tried)` });
    expect(describeItemError(error, 'vid_9', 1).message).toBe(error.message);
  });

  it('a job still running when the wait gave up: named, paid for, and resumed by running the batch again', () => {
    const error = new WaitTimeoutError('vid_9', video({}), 1_000);
    const described = describeItemError(error, 'vid_9');
    expect(described.code).toBe('wait_timeout');
    expect(described.message).toContain('Job vid_9 was created and paid for');
    expect(described.message).toContain('run the batch again over the same folder');
  });

  it('a connection lost during the create: the job may exist, and a rerun creates the item again', () => {
    const described = describeItemError(new APIConnectionError('socket hang up'), undefined);
    expect(described.code).toBe('connection');
    expect(described.message).toContain('may have reached the service');
  });

  it('a connection that never opened (refused, no DNS answer): nothing was sent, so no job was made', () => {
    const refused = new APIConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED).');
    unsent.add(refused);
    const described = describeItemError(refused, undefined);
    expect(described.code).toBe('connection');
    expect(described.message).toContain('Nothing was sent (no connection opened)');
    expect(described.message).not.toContain('may have reached the service');
  });

  it("a connection failure's code is the kind of failure, not the class: a certificate, a proxy, a timeout", () => {
    for (const code of ['tls_certificate', 'tls_protocol', 'proxy_auth', 'proxy_refused', 'proxy_unreachable'] as const) {
      expect(describeItemError(new APIConnectionError('failed', { code }), undefined).code).toBe(code);
    }
    expect(describeItemError(new APIConnectionTimeoutError(), 'vid_9').code).toBe('timeout');
  });

  it('a failure no retry can fix (an untrusted certificate) reached nothing: fix it, then rerun', () => {
    const described = describeItemError(new APIConnectionError('not trusted', { code: 'tls_certificate' }), undefined);
    expect(described.message).toBe(
      'not trusted Nothing reached the service: once that is fixed, a rerun over the same folder makes the item.',
    );
  });
});
