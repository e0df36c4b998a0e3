/**
 * How many video jobs a client keeps running at once, as a pure policy: state + event -> state.
 *
 * The service publishes no rate limits (spec section 8), so the limit is found rather than configured,
 * the way TCP CUBIC finds a link's capacity (and AWS SDK v3's adaptive retry mode a request rate):
 *
 * - Slow start: until the first throttle, every job that ends well adds one (the limit doubles per job
 *   duration).
 * - A throttle (a 429 on a create, or a job FAILED with a rate-limit code) cuts the limit to
 *   `BETA` times itself and remembers the limit it had (`ceilingAtThrottle`).
 * - After a throttle the limit recovers along a cubic curve: fast while far below the old ceiling,
 *   flat near it, then faster again beyond it (probing for more room). Time on the curve is counted in
 *   job durations (a smoothed create-to-end time), so the same policy suits jobs of 300 ms on a mock
 *   and of two minutes on the service.
 * - Throttles of jobs that started before the last cut are ignored for cutting: they report the
 *   congestion the cut already answers, and counting them would collapse the limit to its floor.
 * - A `Retry-After` pauses every new job until it has passed.
 *
 * @internal
 */

export interface ConcurrencyState {
  /** Jobs allowed at once; fractional, read through {@link allowedConcurrency}. */
  limit: number;
  /** True until the first throttle. */
  slowStart: boolean;
  /** The limit just before the last cut: the cubic curve flattens around it. */
  ceilingAtThrottle: number;
  /** When the limit was last cut (ms), or -Infinity. */
  throttledAt: number;
  /** No new job before this time (ms): the server's Retry-After. */
  pausedUntil: number;
  /** Smoothed time from create to a job's end (ms), once a job has ended. */
  jobMs: number | undefined;
}

export interface ConcurrencyBounds {
  /** Lowest limit. */
  min: number;
  /** Highest limit. */
  max: number;
}

export type ConcurrencyEvent =
  /** A job ended (COMPLETE, or FAILED for a reason other than rate limiting): the service had room for it. */
  | { type: 'completed'; at: number; startedAt: number }
  /** The service refused (429) or a job FAILED with a rate-limit code. */
  | { type: 'throttled'; at: number; startedAt: number; retryAfterMs?: number | undefined };

/** Share of the limit kept after a throttle (CUBIC's beta). */
export const BETA = 0.7;
/** Steepness of the recovery curve, in jobs per (job duration)^3 (CUBIC's C). */
export const CUBIC_C = 0.4;
/** Weight of the newest job in the smoothed job duration. */
const JOB_MS_WEIGHT = 0.2;

export function initialConcurrency(initial: number): ConcurrencyState {
  return {
    limit: initial,
    slowStart: true,
    ceilingAtThrottle: initial,
    throttledAt: Number.NEGATIVE_INFINITY,
    pausedUntil: 0,
    jobMs: undefined,
  };
}

const clamp = (value: number, bounds: ConcurrencyBounds) => Math.min(bounds.max, Math.max(bounds.min, value));

/**
 * The limit `elapsedMs` after a cut from `ceiling`, on the cubic curve W(t) = C (t - K)^3 + ceiling,
 * with t in job durations and K the time the curve takes to climb back to `ceiling`.
 */
export function cubicLimit(ceiling: number, elapsedMs: number, jobMs: number): number {
  const k = Math.cbrt((ceiling * (1 - BETA)) / CUBIC_C);
  const t = elapsedMs / Math.max(jobMs, 1);
  return CUBIC_C * (t - k) ** 3 + ceiling;
}

/** The state after `event`. */
export function nextConcurrency(state: ConcurrencyState, event: ConcurrencyEvent, bounds: ConcurrencyBounds): ConcurrencyState {
  if (event.type === 'throttled') {
    const pausedUntil = Math.max(state.pausedUntil, event.at + (event.retryAfterMs ?? 0));
    if (event.startedAt < state.throttledAt) return { ...state, pausedUntil };
    return {
      ...state,
      pausedUntil,
      slowStart: false,
      ceilingAtThrottle: state.limit,
      limit: clamp(state.limit * BETA, bounds),
      throttledAt: event.at,
    };
  }
  const duration = Math.max(0, event.at - event.startedAt);
  const jobMs = state.jobMs === undefined ? duration : state.jobMs + JOB_MS_WEIGHT * (duration - state.jobMs);
  if (state.slowStart) return { ...state, jobMs, limit: clamp(state.limit + 1, bounds) };
  // One ending job never adds more than one: a long quiet spell must not turn into a burst.
  const target = cubicLimit(state.ceilingAtThrottle, event.at - state.throttledAt, jobMs);
  return { ...state, jobMs, limit: clamp(Math.max(state.limit, Math.min(target, state.limit + 1)), bounds) };
}

/** Jobs that may run at `now`: the whole part of the limit, or 0 while a Retry-After pause lasts. */
export function allowedConcurrency(state: ConcurrencyState, now: number): number {
  return now < state.pausedUntil ? 0 : Math.max(1, Math.floor(state.limit));
}

/** Longest pause before creating again a job that FAILED for a rate limit. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Milliseconds to wait before creating again a job that FAILED with a rate-limit code (`attempt` from 1):
 * about one job duration (the time a running job takes to free its place), doubling per attempt, jittered
 * down by up to half so that items failed together do not return together.
 */
export function rateLimitBackoff(attempt: number, jobMs: number | undefined, random: () => number = Math.random): number {
  const base = Math.min((jobMs ?? 1_000) * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 - 0.5 * random()));
}
