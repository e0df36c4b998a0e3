import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  delayWithinHint,
  EMPTY_HISTORY,
  fitFinish,
  hintedDelay,
  type PollObservation,
  type PollScheduleOptions,
  planPoll,
  pollHint,
  recordPoll,
  startWait,
  stepWait,
} from '../../src/lib/poll-schedule.js';
import { runningProgress } from '../../src/lib/wait.js';

const DEFAULTS = { pollInterval: 2_000, maxPollInterval: 10_000 };

/** The plan a wait makes after every observation so far (oldest first): each folded in, then one plan. */
const planNextPoll = (observations: readonly PollObservation[], now: number, options: PollScheduleOptions, random: () => number) =>
  planPoll(observations.reduce(recordPoll, EMPTY_HISTORY), now, options, random);

/** The fit alone, each reading its own value run. */
const estimateFinish = (points: PollObservation[]) =>
  fitFinish(points.flatMap(({ at, progress }) => (progress == null ? [] : [{ progress, timeSum: at, count: 1 }])));
const NEAR_GAP = DEFAULTS.pollInterval / 4;

/** Deterministic numbers in [0, 1), so a failing case can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A synthetic job: its progress at `t` ms (null when it reports none) and when it finishes. */
interface Job {
  finishesAt: number;
  progress(t: number): number | null;
}

/** Run a wait on the pure scheduler against `job`, with each poll taking `latency` ms. */
function simulate(job: Job, options = DEFAULTS, random = seeded(1), latency = 20) {
  const observations: PollObservation[] = [];
  const gaps: number[] = [];
  const plans: Array<{ at: number; delay: number; finishAt: number | undefined }> = [];
  let sentAt = 0;
  for (;;) {
    const at = sentAt + latency / 2;
    if (at >= job.finishesAt) return { polls: observations.length + 1, late: at - job.finishesAt, gaps, plans, observations };
    observations.push({ at, progress: job.progress(at) });
    const now = sentAt + latency;
    const plan = planNextPoll(observations, now, options, random);
    plans.push({ at: now, ...plan });
    gaps.push(now + plan.delay - sentAt);
    sentAt = now + plan.delay;
  }
}

const percent = (fraction: number) => Math.min(99, Math.floor(fraction * 100));
const linear = (finishesAt: number): Job => ({ finishesAt, progress: (t) => percent(t / finishesAt) });
const frontLoaded = (finishesAt: number): Job => ({ finishesAt, progress: (t) => percent(Math.sqrt(t / finishesAt)) });
const backLoaded = (finishesAt: number): Job => ({ finishesAt, progress: (t) => percent((t / finishesAt) ** 2) });

/** What a poller at a fixed `interval` would cost: one poll per interval, and one more to see the end. */
const fixedPolls = (job: Job, interval: number) => Math.ceil(job.finishesAt / interval) + 1;

describe('planNextPoll on synthetic progress', () => {
  it.each([30_000, 60_000, 120_000])('linear progress, %i ms job: seen within a near gap, with fewer polls than a 1 s poller', (ms) => {
    const run = simulate(linear(ms));
    expect(run.late).toBeLessThanOrEqual(NEAR_GAP);
    expect(run.polls).toBeLessThan(fixedPolls(linear(ms), 1_000) / 3);
    // Sparse while far: all but the last few gaps are long.
    expect(run.gaps.filter((gap) => gap < DEFAULTS.maxPollInterval / 2).length).toBeLessThanOrEqual(4);
    expect(run.plans.at(-1)?.finishAt).toBeCloseTo(ms, -3);
  });

  it('never polls closer than a quarter of pollInterval nor further apart than maxPollInterval', () => {
    for (const job of [linear(45_000), frontLoaded(45_000), backLoaded(45_000), linear(2_500)]) {
      for (const seed of [1, 2, 3]) {
        const { gaps } = simulate(job, DEFAULTS, seeded(seed));
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(NEAR_GAP);
        expect(Math.max(...gaps)).toBeLessThanOrEqual(DEFAULTS.maxPollInterval + 20);
      }
    }
  });

  it('front-loaded progress (fast start, slow end): no later than backoff would be, far fewer polls than a 1 s poller', () => {
    const job = frontLoaded(90_000);
    const run = simulate(job);
    expect(run.late).toBeLessThanOrEqual(DEFAULTS.maxPollInterval);
    expect(run.polls).toBeLessThan(fixedPolls(job, 1_000) / 3);
  });

  it('back-loaded progress (slow start, fast end): seen within a few seconds, far fewer polls than a 1 s poller', () => {
    const job = backLoaded(90_000);
    const run = simulate(job);
    expect(run.late).toBeLessThanOrEqual(DEFAULTS.maxPollInterval / 2);
    expect(run.polls).toBeLessThan(fixedPolls(job, 1_000) / 3);
  });

  it('noisy progress (readings off by up to 2 points either way): still seen within about a second', () => {
    for (const seed of [7, 8, 9, 10]) {
      const noise = seeded(seed);
      const job: Job = {
        finishesAt: 60_000,
        progress: (t) => Math.max(0, Math.min(99, Math.floor((t / 60_000) * 100 + (noise() * 4 - 2)))),
      };
      const run = simulate(job, DEFAULTS, seeded(seed));
      expect(run.late).toBeLessThanOrEqual(1_500);
      expect(run.polls).toBeLessThan(fixedPolls(job, 1_000) / 3);
    }
  });

  it('stuck at 99: after a few misses it backs off instead of polling every quarter interval', () => {
    // Linear to 99% at 30 s, then 99% until 90 s.
    const job: Job = { finishesAt: 90_000, progress: (t) => percent(Math.min(t / 30_000, 0.99)) };
    const run = simulate(job);
    const stuck = run.plans.filter((plan) => plan.at > 31_000);
    expect(stuck.filter((plan) => plan.delay <= NEAR_GAP).length).toBeLessThanOrEqual(3);
    expect(stuck.slice(-3).every((plan) => plan.finishAt === undefined && plan.delay >= DEFAULTS.maxPollInterval * 0.75)).toBe(true);
    expect(run.polls).toBeLessThan(fixedPolls(job, 2_000) / 2);
  });

  it('null progress: exactly the backoff, and no estimate', () => {
    const run = simulate({ finishesAt: 60_000, progress: () => null }, DEFAULTS, () => 0);
    expect(run.plans.slice(0, 6).map((plan) => plan.delay)).toEqual([2_000, 3_000, 4_500, 6_750, 10_000, 10_000]);
    expect(run.plans.every((plan) => plan.finishAt === undefined)).toBe(true);
  });

  it('progress standing still gives no estimate; moving again brings one back', () => {
    const still = Array.from({ length: 6 }, (_, i) => ({ at: i * 1_000, progress: 40 }));
    expect(planNextPoll(still, 5_000, DEFAULTS, () => 0)).toEqual({ delay: backoffDelay(5, DEFAULTS, () => 0), finishAt: undefined });
    const moving = [...still, ...[46, 52, 58, 64].map((progress, i) => ({ at: 6_000 + i * 1_000, progress }))];
    expect(planNextPoll(moving, 9_000, DEFAULTS, () => 0).finishAt).toBeCloseTo(15_000, -3);
  });

  it('progress jumping backwards (a restart): backs off until the new run shows its pace', () => {
    const before = [0, 10, 20, 30, 40].map((progress, i) => ({ at: i * 2_000, progress }));
    const restarted = [...before, { at: 10_000, progress: 5 }];
    expect(planNextPoll(restarted, 10_000, DEFAULTS, () => 0)).toEqual({ delay: DEFAULTS.pollInterval, finishAt: undefined });
    const paced = [...restarted, { at: 12_000, progress: 15 }, { at: 14_000, progress: 25 }];
    expect(planNextPoll(paced, 14_000, DEFAULTS, () => 0).finishAt).toBeCloseTo(29_000, -3);
    // The whole run still ends promptly.
    const job: Job = { finishesAt: 70_000, progress: (t) => (t < 30_000 ? percent(t / 60_000) : percent((t - 30_000) / 40_000)) };
    expect(simulate(job).late).toBeLessThanOrEqual(DEFAULTS.maxPollInterval);
  });

  it('an estimate that keeps missing is dropped for the rest of the wait', () => {
    // Says it will finish at 10 s; polls at 10.0, 10.5 and 11.0 s find it still at 99.
    const series = [0, 20, 40, 60, 80, 99, 99, 99, 99].map((progress, i) => ({ at: i < 6 ? i * 2_000 : 10_000 + (i - 5) * 500, progress }));
    expect(planNextPoll(series.slice(0, 6), 10_000, DEFAULTS, () => 0).finishAt).toBeDefined();
    const plan = planNextPoll(series, 12_000, DEFAULTS, () => 0);
    expect(plan.finishAt).toBeUndefined();
    expect(plan.delay).toBeGreaterThanOrEqual(DEFAULTS.pollInterval);
  });

  it('remembers a few progress values, not every poll, and weighs dense polls like sparse ones', () => {
    // A poll every 50 ms (as a server hint might ask) on a job moving one point every 3 s.
    const dense = Array.from({ length: 5_000 }, (_, i) => ({ at: i * 50, progress: Math.floor(i / 60) }));
    const history = dense.reduce(recordPoll, EMPTY_HISTORY);
    expect(history.runs.length).toBeLessThanOrEqual(5);
    expect(history.finishAt).toBeCloseTo(300_000, -4);
    expect(planNextPoll(dense, 250_000, DEFAULTS, () => 0)).toEqual(planPoll(history, 250_000, DEFAULTS, () => 0));
  });
});

describe('a server hint and the estimated end', () => {
  it('moves a poll later, never sooner: just after the end when it falls between the hinted poll and the next', () => {
    expect(delayWithinHint(50, undefined)).toBe(50);
    expect(delayWithinHint(50, 20)).toBe(50); // the end comes before the hinted poll: no sooner than the hint
    expect(delayWithinHint(50, 37.5)).toBe(50);
    expect(delayWithinHint(50, 45)).toBe(58); // a quarter of the hint after the end
    expect(delayWithinHint(50, 87.5)).toBe(100);
    expect(delayWithinHint(50, 88)).toBe(50); // further: the hinted poll first, which refines the estimate
  });

  it('finds a job with linear progress just after it ends, whatever the phase of the polls, never polling sooner than asked', () => {
    const HINT = 50;
    const JOB_MS = 1_000;
    const lags: number[] = [];
    for (let phase = 0; phase < HINT; phase += 7) {
      let t = phase;
      let state = startWait(0);
      for (;;) {
        const progress = Math.min(99, Math.floor((t / JOB_MS) * 100));
        const step = stepWait(state, { at: t, progress }, t, HINT, DEFAULTS, () => 0.5);
        expect(step.plan.delay).toBeGreaterThanOrEqual(HINT);
        state = step.state;
        t += step.plan.delay;
        if (t >= JOB_MS) break;
      }
      lags.push(t - JOB_MS);
    }
    // With the hint alone the poll that finds the end comes up to 52.5 ms late (half that, on average); aimed, about
    // a quarter of a hint plus the estimate's error of a point or so.
    expect(Math.max(...lags)).toBeLessThanOrEqual(30);
    expect(lags.reduce((sum, lag) => sum + lag, 0) / lags.length).toBeLessThan(20);
  });
});

describe('estimateFinish', () => {
  it('fits a line through the readings, counting each integer reading as half a point more', () => {
    const points = [0, 25, 50].map((progress, i) => ({ at: i * 5_000, progress }));
    expect(estimateFinish(points)).toBeCloseTo(19_900, 0);
  });

  it('is not thrown off by one wild reading', () => {
    const points = [10, 20, 90, 40, 50].map((progress, i) => ({ at: i * 1_000, progress }));
    expect(estimateFinish(points)).toBeCloseTo(8_950, 0);
  });

  it('has no answer for fewer than two readings, or progress that does not rise', () => {
    expect(estimateFinish([{ at: 0, progress: 10 }])).toBeUndefined();
    expect(
      estimateFinish([
        { at: 0, progress: null },
        { at: 1, progress: null },
      ]),
    ).toBeUndefined();
    expect(
      estimateFinish([
        { at: 0, progress: 50 },
        { at: 1_000, progress: 40 },
      ]),
    ).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('grows by half from pollInterval to maxPollInterval, shortened by at most a quarter', () => {
    expect([0, 1, 2, 3, 4, 9].map((step) => backoffDelay(step, DEFAULTS, () => 0))).toEqual([2_000, 3_000, 4_500, 6_750, 10_000, 10_000]);
    expect(backoffDelay(0, DEFAULTS, () => 1)).toBe(1_500);
    expect(new Set([0.1, 0.5, 0.9].map((r) => backoffDelay(2, DEFAULTS, () => r))).size).toBe(3);
  });
});

describe('a server hint', () => {
  // How a wait obeys one is test/videos/wait.test.ts's.
  it('stretches hints by up to a tenth, and reads them from either header', () => {
    expect(hintedDelay(5_000, () => 0)).toBe(5_000);
    expect(hintedDelay(5_000, () => 1)).toBe(5_500);
    expect(hintedDelay(120, () => 0)).toBe(120);
    expect(hintedDelay(10, () => 0)).toBe(50);
    expect(pollHint({ 'retry-after': '2' })).toBe(2_000);
    expect(pollHint({ 'x-poll-after': '0.5' })).toBe(500);
    expect(pollHint({ 'retry-after': 'soon' })).toBeUndefined();
  });
});

describe('a job not started yet: QUEUED, or a status this SDK does not know', () => {
  it('has no progress the schedule fits, whatever it reports; PROCESSING has its own', () => {
    expect(runningProgress({ status: 'QUEUED', progress: 0 })).toBeNull();
    expect(runningProgress({ status: 'SCHEDULED', progress: 30 })).toBeNull();
    expect(runningProgress({ status: 'PROCESSING', progress: 30 })).toBe(30);
    expect(runningProgress({ status: 'PROCESSING', progress: null })).toBeNull();
  });

  it('backs off while queued, then estimates the end from PROCESSING alone', () => {
    // QUEUED with progress 0 for 20 s, then PROCESSING from 0 to 100 over 10 s.
    const at = [0, 5_000, 10_000, 15_000, 20_000, 22_000, 24_000, 26_000];
    const seen = at.map((t) => (t < 20_000 ? { status: 'QUEUED', progress: 0 } : { status: 'PROCESSING', progress: (t - 20_000) / 100 }));
    /** The history after the first `polls` looks, their progress read by `read`. */
    const fold = (read: (video: { status: string; progress: number }) => number | null | undefined, polls = seen.length) =>
      seen
        .slice(0, polls)
        .reduce((history, video, i) => recordPoll(history, { at: at[i] as number, progress: read(video) }), EMPTY_HISTORY);
    const queued = fold(runningProgress, 4);
    expect(planPoll(queued, 15_000, DEFAULTS, () => 0)).toEqual({ delay: backoffDelay(3, DEFAULTS, () => 0), finishAt: undefined });
    expect(fold(runningProgress).finishAt).toBeCloseTo(30_000, -3);
    // Read as progress, the queue's zeros would drag the estimate late.
    expect(Math.abs((fold((video) => video.progress).finishAt as number) - 30_000)).toBeGreaterThan(2_000);
  });
});
