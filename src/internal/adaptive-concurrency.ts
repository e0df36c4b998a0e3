/**
 * How many video jobs a client keeps running at once, as a pure policy: state + event -> state. The service
 * publishes no rate limits (spec section 8), so the limit is found, the way TCP CUBIC finds a link's capacity:
 *
 * - Slow start: until the first refused create, each accepted create and each job that ends well adds a half.
 * - A throttle cuts the limit: a 429 on a create to `BETA` of itself, a job FAILED for a rate limit to
 *   `BETA_FAILED`. Only a 429 ends slow start or lowers the remembered ceiling: a rate-limited failure may come
 *   from quotas unrelated to how many jobs run, so such noise costs a dip, not a limit ratcheted to its floor.
 * - Then the limit recovers along a cubic curve (fast far below the old ceiling, flat near it, probing beyond),
 *   timed in smoothed job durations, so it suits 300 ms jobs on a mock and two-minute jobs on the service.
 * - A throttle the last cut already answers (begun before it, or with more jobs running than the cut allows) does
 *   not cut again: counting it would collapse the limit.
 * - Growth stops one above the most jobs the service was seen to accept at once: it probes one job at a time,
 *   not in bursts that would all be refused (a long quiet spell or many jobs ending at once).
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
  /** The limit right after the last cut: where the cubic curve starts. */
  limitAfterThrottle: number;
  /** When the limit was last cut (ms), or -Infinity. */
  throttledAt: number;
  /** No new job before this time (ms): the server's Retry-After. */
  pausedUntil: number;
  /** Most jobs seen running at once when the service accepted a create. */
  proven: number;
  /** Smoothed time from create to a job's end (ms), once a job has ended. */
  jobMs: number | undefined;
}

/** Lowest and highest limit. */
export interface ConcurrencyBounds {
  min: number;
  max: number;
}

export type ConcurrencyEvent =
  /** The service accepted a create, with `running` jobs running (this one included). */
  | { type: 'admitted'; at: number; running: number }
  /** A job ended (COMPLETE, or FAILED for a reason other than rate limiting): the service had room for it. */
  | { type: 'completed'; at: number; startedAt: number }
  /** A create refused (429: `refused`) or a job FAILED for a rate limit (`failed`), with `running` jobs holding a place. */
  | { type: 'throttled'; cause: 'refused' | 'failed'; at: number; startedAt: number; running: number; retryAfterMs?: number | undefined };

/** Share of the limit kept after a refused create (CUBIC's beta). */
export const BETA = 0.7;
/** Share kept after a rate-limited job failure: weaker evidence of too many jobs, so a smaller cut. */
export const BETA_FAILED = 0.85;
/** Steepness of the recovery curve, in jobs per (job duration)^3 (CUBIC's C). */
const CUBIC_C = 0.2;
/** Growth in slow start per accepted create and per job that ends well. */
const SLOW_START_STEP = 0.5;
/** Growth per accepted create before any throttle at all: the first round runs twice the initial limit. */
const FIRST_PROBE_STEP = 1;
/** Weight of the newest job in the smoothed job duration. */
const JOB_MS_WEIGHT = 0.2;

export function initialConcurrency(initial: number): ConcurrencyState {
  return {
    limit: initial,
    slowStart: true,
    ceilingAtThrottle: initial,
    limitAfterThrottle: initial,
    throttledAt: Number.NEGATIVE_INFINITY,
    pausedUntil: 0,
    proven: 0,
    jobMs: undefined,
  };
}

const clamp = (value: number, bounds: ConcurrencyBounds) => Math.min(bounds.max, Math.max(bounds.min, value));

/** The limit `elapsedMs` after a cut from `ceiling` to `start`: W(t) = C (t - K)^3 + ceiling, t in job durations. */
export function cubicLimit(ceiling: number, start: number, elapsedMs: number, jobMs: number): number {
  const k = Math.cbrt(Math.max(0, ceiling - start) / CUBIC_C);
  const t = elapsedMs / Math.max(jobMs, 1);
  return CUBIC_C * (t - k) ** 3 + ceiling;
}

/** The state after `event`. */
export function nextConcurrency(state: ConcurrencyState, event: ConcurrencyEvent, bounds: ConcurrencyBounds): ConcurrencyState {
  if (event.type === 'throttled') {
    const pausedUntil = Math.max(state.pausedUntil, event.at + (event.retryAfterMs ?? 0));
    // A job that failed still ran for a job's time; a refused create did not run at all.
    const jobMs = event.cause === 'failed' ? smoothJobMs(state.jobMs, event) : state.jobMs;
    // Already answered: the request began before the last cut, or more jobs run than the cut limit allows
    // (they were let in under the old limit, and this throttle is their overshoot).
    if (event.startedAt < state.throttledAt || event.running > state.limit) return { ...state, pausedUntil, jobMs };
    const refused = event.cause === 'refused';
    const limit = clamp(state.limit * (refused ? BETA : BETA_FAILED), bounds);
    return {
      ...state,
      pausedUntil,
      slowStart: state.slowStart && !refused,
      ceilingAtThrottle: ceilingAfterThrottle(state, refused),
      limit,
      limitAfterThrottle: limit,
      throttledAt: event.at,
      jobMs,
    };
  }
  if (event.type === 'admitted') {
    const proven = Math.max(state.proven, event.running);
    if (!state.slowStart) return { ...state, proven };
    const step = state.throttledAt === Number.NEGATIVE_INFINITY ? FIRST_PROBE_STEP : SLOW_START_STEP;
    return { ...state, proven, limit: grow(state.limit, step, proven, bounds) };
  }
  const jobMs = smoothJobMs(state.jobMs, event);
  if (state.slowStart) return { ...state, jobMs, limit: grow(state.limit, SLOW_START_STEP, state.proven, bounds) };
  // One ending job never adds more than one: a long quiet spell must not turn into a burst.
  const target = cubicLimit(state.ceilingAtThrottle, state.limitAfterThrottle, event.at - state.throttledAt, jobMs);
  return { ...state, jobMs, limit: grow(state.limit, Math.min(1, target - state.limit), state.proven, bounds) };
}

function smoothJobMs(jobMs: number | undefined, event: { at: number; startedAt: number }): number {
  const duration = Math.max(0, event.at - event.startedAt);
  return jobMs === undefined ? duration : jobMs + JOB_MS_WEIGHT * (duration - jobMs);
}

/** The ceiling after a cut: a refusal below the last one means the room shrank (CUBIC's fast convergence). */
function ceilingAfterThrottle(state: ConcurrencyState, refused: boolean): number {
  if (state.slowStart) return state.limit;
  if (!refused) return Math.max(state.ceilingAtThrottle, state.limit);
  return state.limit < state.ceilingAtThrottle ? (state.limit * (1 + BETA)) / 2 : state.limit;
}

/** `limit` raised by `step` (never lowered here), but at most one above the most jobs seen accepted. */
function grow(limit: number, step: number, proven: number, bounds: ConcurrencyBounds): number {
  if (step <= 0) return limit;
  return clamp(Math.max(limit, Math.min(limit + step, proven + 1)), bounds);
}

/** Jobs that may run at `now`: the whole limit, within a caller's own fixed `bounds`, or 0 during a pause. */
export function allowedConcurrency(state: ConcurrencyState, now: number, bounds?: ConcurrencyBounds): number {
  if (now < state.pausedUntil) return 0;
  const whole = Math.max(1, Math.floor(state.limit));
  return bounds ? clamp(whole, bounds) : whole;
}
