import { type CreateRate, earliestFinishSeconds } from '../../internal/create-rate.js';

// The plan's arithmetic, pure: what jobs of known lengths are billed, and the least time a run of them can take.

/**
 * Seconds the service bills for a job of `seconds` of output: rounded up to a multiple of `increment` (a segment of
 * 18.4 s at 6 s steps is billed 24). A hair over a multiple from float sums (12.000000001) is not a step more.
 */
export function billedSeconds(seconds: number, increment: number): number {
  if (seconds <= 0) return 0;
  return Math.ceil(seconds / increment - 1e-9) * increment;
}

/** What the figures of a plan assume: the rate creates go at, a job's typical time and the billing step. */
export interface PlanAssumptions {
  /** The create rate: the one declared (`createRate`, `AVATAR_VIDEO_CREATE_RATE`), else the service's published 2 a minute. */
  createRate: CreateRate;
  createRateSource: 'declared' | 'published';
  /** Seconds a job takes from its create to its end. */
  jobSeconds: number;
  /** `option` (`jobSeconds` given), `measured` (this client's jobs so far) or `default` (120: the spec's "most under two minutes"). */
  jobSecondsSource: 'option' | 'measured' | 'default';
  /** The billing step in force (the client's `billingIncrementSeconds`). */
  billingIncrementSeconds: number;
}

/** The totals of planned items, each `{ jobs, audioSeconds, billedSeconds }`: `earliestFinishSeconds` of all their jobs. */
export function planTotals(
  items: ReadonlyArray<{ jobs: number; audioSeconds?: number | undefined; billedSeconds: number }>,
  assumes: PlanAssumptions,
) {
  let jobs = 0;
  let audioSeconds = 0;
  let billed = 0;
  for (const item of items) {
    jobs += item.jobs;
    // An item with problems makes no job, so it adds no audio either.
    if (item.jobs > 0) audioSeconds += item.audioSeconds ?? 0;
    billed += item.billedSeconds;
  }
  return {
    jobs,
    audioSeconds,
    billedSeconds: billed,
    earliestFinishSeconds: earliestFinishSeconds(jobs, assumes.createRate, assumes.jobSeconds),
  };
}
