/**
 * The re-create policy of lib/job-policy.ts: which failed jobs the job runner makes again (for `generate`,
 * `createAndWait`, a batch item, a long video's segment alike), when, and how often; and what a job's error is to it.
 */
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  InternalServerError,
  RateLimitError,
  UnprocessableEntityError,
  VideoCancelledError,
  VideoFailedError,
} from '../../src/errors.js';
import { retryDelay, unsent } from '../../src/internal/retry.js';
import {
  DEFAULT_JOB_ATTEMPTS,
  jobFailure,
  limiterOutcome,
  MAX_REFUSED_CREATES,
  MAX_UNREACHED_CREATES,
  recreateDelay,
  shouldRecreate,
} from '../../src/lib/job-policy.js';
import type { Video } from '../../src/schemas.js';

const unreached = { kind: 'refused' as const, throttled: false, retryAfterMs: undefined, unreached: 'refused' as const };
const failed = (code: string | undefined, rateLimited = false) => ({ kind: 'failed' as const, code, rateLimited });
const refused = (throttled: boolean, retryAfterMs?: number) => ({ kind: 'refused' as const, throttled, retryAfterMs });
/** The context of a try, the caller's maxRetryDelay at its default. */
const at = (context: { tries: number; maxJobs: number; jobMs?: number; outsideLimit?: boolean; random?: () => number }) => ({
  maxRetryDelay: 60_000,
  ...context,
});

describe('re-creating a job', () => {
  it('makes again a refused create and a job FAILED for a rate limit or a fault of the service', () => {
    expect(shouldRecreate(refused(true))).toBe(true);
    expect(shouldRecreate(refused(false))).toBe(true);
    expect(shouldRecreate(failed('rate_limit_exceeded', true))).toBe(true);
    for (const code of ['internal_error', 'server_error', 'service_unavailable', 'render_timeout', 'Overloaded']) {
      expect(shouldRecreate(failed(code))).toBe(true);
    }
  });

  it('reports instead a job that would fail again on the same inputs, one of unknown cause, and a cancelled one', () => {
    for (const code of ['face_not_found', 'invalid_audio', 'content_policy', undefined]) expect(shouldRecreate(failed(code))).toBe(false);
    expect(shouldRecreate({ kind: 'cancelled' })).toBe(false);
    expect(recreateDelay(failed('face_not_found'), at({ tries: 1, maxJobs: 10 }))).toBeUndefined();
  });

  it('waits retryDelay’s delay, jitter included; after a job ran, counted in quarters of a job’s duration', () => {
    for (const tries of [1, 2, 3, 6]) {
      for (const random of [() => 0, () => 1]) {
        const seconds = retryDelay(tries, undefined, { maxRetryDelay: 1e9, random }) as number;
        expect(recreateDelay(refused(false), at({ tries, maxJobs: 10, random }))).toBe(seconds);
        // A 429 waits nothing here: the create-rate gate paces the next create.
        expect(recreateDelay(refused(true), at({ tries, maxJobs: 10, random }))).toBe(0);
        expect(recreateDelay(failed('internal_error'), at({ tries, maxJobs: 10, random }))).toBe(seconds);
        // 2 s jobs: the first delay is half a second, as retryDelay's; 300 ms jobs: 75 ms.
        expect(recreateDelay(failed('internal_error'), at({ tries, maxJobs: 10, jobMs: 2_000, random }))).toBe(seconds);
        expect(recreateDelay(failed('internal_error'), at({ tries, maxJobs: 10, jobMs: 300, random }))).toBe(
          Math.round((seconds * 300) / 2_000),
        );
      }
    }
    expect(recreateDelay(failed('x', true), at({ tries: 1, maxJobs: 10, jobMs: 300, random: () => 0 }))).toBe(75);
    expect(recreateDelay(failed('x', true), at({ tries: 2, maxJobs: 10, jobMs: 120_000, random: () => 0 }))).toBe(60_000);
    expect(recreateDelay(failed('x', true), at({ tries: 2, maxJobs: 10, jobMs: 120_000, random: () => 1 }))).toBe(45_000);
  });

  it('leaves a 429’s Retry-After to the gate, and gives up at once on one beyond maxRetryDelay', () => {
    expect(recreateDelay(refused(true, 1_500), at({ tries: 3, maxJobs: 10 }))).toBe(0);
    expect(recreateDelay(refused(false, 1_500), at({ tries: 3, maxJobs: 10 }))).toBe(1_500);
    expect(recreateDelay(refused(false, 0), at({ tries: 1, maxJobs: 10 }))).toBe(0);
    expect(recreateDelay(refused(true, 120_000), at({ tries: 1, maxJobs: 10 }))).toBeUndefined();
    expect(recreateDelay(refused(true, 120_000), { tries: 1, maxJobs: 10, maxRetryDelay: 120_000 })).toBe(0);
  });

  it('makes a job FAILED for a rate limit again at once when a limit outside the SDK holds its place', () => {
    for (const random of [() => 0, () => 1]) {
      expect(recreateDelay(failed('rate_limit_exceeded', true), at({ tries: 1, maxJobs: 3, outsideLimit: true, random }))).toBe(0);
      // A fault of the service is still waited out: the outside limit says nothing of when it heals.
      expect(recreateDelay(failed('internal_error'), at({ tries: 1, maxJobs: 3, outsideLimit: true, random }))).toBeGreaterThan(0);
      expect(recreateDelay(failed('rate_limit_exceeded', true), at({ tries: 1, maxJobs: 3, random }))).toBeGreaterThan(0);
    }
    // The budget of jobs holds all the same.
    expect(recreateDelay(failed('rate_limit_exceeded', true), at({ tries: 3, maxJobs: 3, outsideLimit: true }))).toBeUndefined();
  });

  it('stops after maxJobs jobs, and after MAX_REFUSED_CREATES refused creates made again', () => {
    // The numbers the README and docs/retry-budgets.md give, which the tests of test/videos/ count on.
    expect(DEFAULT_JOB_ATTEMPTS).toBe(3);
    expect(MAX_REFUSED_CREATES).toBe(20);
    expect(recreateDelay(failed('x', true), at({ tries: DEFAULT_JOB_ATTEMPTS - 1, maxJobs: DEFAULT_JOB_ATTEMPTS }))).toBeDefined();
    expect(recreateDelay(failed('x', true), at({ tries: DEFAULT_JOB_ATTEMPTS, maxJobs: DEFAULT_JOB_ATTEMPTS }))).toBeUndefined();
    // Refusals started no job: they do not spend maxJobs.
    for (const throttled of [true, false]) {
      expect(recreateDelay(refused(throttled), at({ tries: MAX_REFUSED_CREATES, maxJobs: 1 }))).toBeDefined();
      expect(recreateDelay(refused(throttled), at({ tries: MAX_REFUSED_CREATES + 1, maxJobs: 1 }))).toBeUndefined();
    }
  });

  it('makes a create that opened no connection again twice, quickly: a dead base URL fails in seconds', () => {
    // A refused port or a name with no address: a blip heals within a try or two; twenty tries took two minutes.
    expect(MAX_UNREACHED_CREATES).toBe(2);
    let waited = 0;
    for (let tries = 1; tries <= MAX_UNREACHED_CREATES; tries++) {
      const delay = recreateDelay(unreached, at({ tries, maxJobs: 3, random: () => 0 })) as number;
      expect(delay).toBe(retryDelay(tries, undefined, { maxRetryDelay: 1e9, random: () => 0 }));
      waited += delay;
    }
    expect(recreateDelay(unreached, at({ tries: MAX_UNREACHED_CREATES + 1, maxJobs: 3 }))).toBeUndefined();
    // 0.5 s then 1 s: well inside the 15 s a call that cannot connect is given to fail.
    expect(waited).toBe(1_500);
    // A connection that took the whole connect timeout (10 s) to fail is not tried again: a second would pass 15 s.
    expect(recreateDelay({ ...unreached, unreached: 'timed-out' }, at({ tries: 1, maxJobs: 3 }))).toBeUndefined();
    // An answered refusal (a 503) keeps its twenty.
    expect(recreateDelay(refused(false), at({ tries: MAX_UNREACHED_CREATES + 1, maxJobs: 1 }))).toBeDefined();
  });
});

const ended = (status: string, code?: string) =>
  ({ id: 'vid_1', status, progress: null, error: code ? { code, message: code } : null }) as unknown as Video;
const answered = <E>(Type: new (...args: never[]) => E, status: number, headers: Record<string, string> = {}) =>
  Object.assign(Object.create(Type.prototype), { status, headers }) as E;

describe('what a job’s error is to the policy', () => {
  it('a refused create only before a job exists: 429 (with its Retry-After), 503, or a connection that sent nothing', () => {
    expect(jobFailure(answered(RateLimitError, 429, { 'retry-after': '2' }), undefined)).toEqual(refused(true, 2_000));
    expect(jobFailure(answered(InternalServerError, 503), undefined)).toEqual(refused(false, undefined));
    const cut = new APIConnectionError('refused');
    unsent.add(cut);
    expect(jobFailure(cut, undefined)).toEqual({ ...refused(false, undefined), unreached: 'refused' });
    const slow = new APIConnectionTimeoutError('connect timed out');
    unsent.add(slow);
    expect(jobFailure(slow, undefined)).toEqual({ ...refused(false, undefined), unreached: 'timed-out' });
    // The create may have reached the service: no say, it is thrown.
    expect(jobFailure(new APIConnectionError('reset after sending'), undefined)).toBeUndefined();
    expect(jobFailure(answered(InternalServerError, 500), undefined)).toBeUndefined();
    expect(jobFailure(answered(UnprocessableEntityError, 422), undefined)).toBeUndefined();
    // Once a job exists, nothing is a refusal.
    expect(jobFailure(answered(RateLimitError, 429), 'vid_1')).toBeUndefined();
  });

  it('a job that ended, by its status and code; and what its end teaches the limiter', () => {
    const limited = new VideoFailedError(ended('FAILED', 'rate_limit_exceeded'));
    expect(jobFailure(limited, 'vid_1')).toEqual(failed('rate_limit_exceeded', true));
    expect(jobFailure(new VideoCancelledError(ended('CANCELLED')), 'vid_1')).toEqual({ kind: 'cancelled' });
    expect(limiterOutcome(limited)).toBe('throttled');
    expect(limiterOutcome(new VideoFailedError(ended('FAILED', 'face_not_found')))).toBe('completed');
    expect(limiterOutcome(new VideoCancelledError(ended('CANCELLED')))).toBe('completed');
    expect(limiterOutcome(answered(RateLimitError, 429))).toBe('unknown');
  });
});
