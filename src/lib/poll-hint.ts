import { header, type RawHeaders } from '../internal/headers.js';
import { parseRetryAfter } from '../internal/retry.js';

/**
 * A server's say on when to poll again (`Retry-After`, `x-poll-after`): it wins over the wait's own schedule,
 * sooner or later, within bounds that keep a broken server from making a wait spin.
 */

/** Headers a server may use to say when to poll again (delay-seconds or an HTTP-date). */
const POLL_HINT_HEADERS = ['retry-after', 'x-poll-after'];
/** Server hints are stretched by up to this fraction, so jobs given the same hint do not poll in step. */
const HINT_JITTER = 0.1;
/** The shortest delay a server hint can ask for, so that a broken or hostile server cannot make a wait spin. */
const MIN_HINT_MS = 50;

/**
 * Milliseconds until the next poll when the server said when to come back. The hint wins over the
 * client's own schedule, sooner or later, down to `MIN_HINT_MS`.
 * @internal
 */
export function hintedDelay(hint: number, random = Math.random): number {
  return Math.round(Math.max(hint, MIN_HINT_MS) * (1 + HINT_JITTER * random()));
}

/** @internal The first poll hint found in response headers, in ms. */
export function pollHint(headers: RawHeaders): number | undefined {
  for (const name of POLL_HINT_HEADERS) {
    const hint = parseRetryAfter(header(headers, name));
    if (hint !== undefined) return hint;
  }
  return undefined;
}
