import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, AvatarVideoError } from '../../src/errors.js';
import { backoff, isRetryable, parseRetryAfter, retryDelay, unsent as unsentErrors } from '../../src/internal/retry.js';

const status = (code: number) => new APIError({ status: code, message: `${code}`, headers: {}, body: null });
/** A connection error raised before any byte of the request left (refused, DNS). */
const unsent = <E extends Error>(error: E) => {
  unsentErrors.add(error);
  return error;
};

describe('isRetryable', () => {
  it.each([408, 409, 429, 500, 502, 503, 504])('retries a read after %i', (code) => {
    expect(isRetryable('read', status(code))).toBe(true);
  });
  it.each([400, 401, 403, 404, 422])('does not retry a read after %i', (code) => {
    expect(isRetryable('read', status(code))).toBe(false);
  });
  it('retries a create only where the job certainly did not start', () => {
    expect(isRetryable('create', status(429))).toBe(true);
    expect(isRetryable('create', status(503))).toBe(true);
    expect(isRetryable('create', status(500))).toBe(false);
    expect(isRetryable('create', status(502))).toBe(false);
    expect(isRetryable('create', status(409))).toBe(false);
    expect(isRetryable('create', unsent(new APIConnectionError()))).toBe(true);
    expect(isRetryable('create', unsent(new APIConnectionTimeoutError()))).toBe(true);
    expect(isRetryable('create', new APIConnectionError())).toBe(false);
    expect(isRetryable('create', new APIConnectionTimeoutError())).toBe(false);
  });
  it('retries reads after connection failures and timeouts, never after an abort or a local error', () => {
    expect(isRetryable('read', new APIConnectionError())).toBe(true);
    expect(isRetryable('read', new APIConnectionTimeoutError())).toBe(true);
    expect(isRetryable('read', new APIUserAbortError())).toBe(false);
    expect(isRetryable('create', new APIUserAbortError())).toBe(false);
    expect(isRetryable('read', new AvatarVideoError('a bad id'))).toBe(false);
    expect(isRetryable('read', new TypeError('a bug'))).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });
  it('reads an HTTP-date relative to now, never negative', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores missing and garbage values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  const options = { maxRetryDelay: 60_000 };
  it('obeys a server hint exactly, without jitter', () => {
    expect(retryDelay(1, 2500, { ...options, random: () => 0.99 })).toBe(2500);
  });
  it('gives up when the hint exceeds maxRetryDelay', () => {
    expect(retryDelay(1, 61_000, options)).toBeUndefined();
    expect(retryDelay(1, 60_000, options)).toBe(60_000);
  });
  it('doubles computed delays from 0.5 s up to 8 s', () => {
    const none = { ...options, random: () => 0 };
    expect([1, 2, 3, 4, 5, 6, 9].map((n) => retryDelay(n, undefined, none))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
  it('jitters computed delays down by at most 25%', () => {
    expect(retryDelay(1, undefined, { ...options, random: () => 1 })).toBe(375);
    expect(retryDelay(3, undefined, { ...options, random: () => 0.5 })).toBe(1750);
  });
  it('caps computed delays at maxRetryDelay', () => {
    expect(retryDelay(5, undefined, { maxRetryDelay: 100, random: () => 0 })).toBe(100);
  });
});

describe('backoff', () => {
  it('doubles from the first delay up to the cap, jittered down by at most a quarter', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoff(n, 10, 100, () => 0))).toEqual([10, 20, 40, 80, 100]);
    expect(backoff(1, 2_000, 10_000, () => 1)).toBe(1_500);
    expect(backoff(9, 2_000, 10_000, () => 1)).toBe(7_500);
  });
});
