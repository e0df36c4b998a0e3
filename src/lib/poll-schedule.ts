/**
 * When to poll a running job next, from the progress it reported so far. Pure: the same observations, time,
 * options and random numbers give the same plan. `recordPoll` folds one observation into a small history (a
 * wait's cost per poll stays constant however long it runs); `planPoll` turns a history into the next delay.
 * While progress moves, a line fitted through the last few values says when it will reach 100: polls are sparse
 * while that is far and aimed at it once near. Without usable progress the plan is plain backoff. A server's
 * hint (`Retry-After`, `x-poll-after`) wins over the plan, within bounds that keep a broken server from making a
 * wait spin; the plan only moves a poll later, to land just after the estimated end.
 */
import { header, type RawHeaders } from '../internal/headers.js';
import { backoff, parseRetryAfter } from '../internal/retry.js';

/** @internal One look at a job that was still running: when it was taken, in ms on the wait's clock, and its progress. */
export interface PollObservation {
  at: number;
  /** 0-100 as reported; null or undefined when the job did not say. */
  progress: number | null | undefined;
}

/** @internal */
export interface PollScheduleOptions {
  /** First backoff delay, in ms; a quarter of it is the shortest gap between two polls. */
  pollInterval: number;
  /** Longest gap between polls, in ms. */
  maxPollInterval: number;
}

/** @internal */
export interface PollPlan {
  /** Milliseconds from `now` until the next poll. */
  delay: number;
  /** When progress should reach 100, on the wait's clock; undefined when progress gives no estimate. */
  finishAt: number | undefined;
}

/** Progress values fitted at once: enough to outvote one odd reading, few enough to follow a change of pace. */
const FIT_WINDOW = 5;
/** Polls that find the job running after its estimated end (or progress going backwards) before the estimate is dropped. */
const MAX_MISSES = 3;
/** A drop in progress larger than this many points is a restart, not noise in the readings. */
const BACKWARD_TOLERANCE = 3;
/** The shortest gap between polls, as a share of `pollInterval`. */
const NEAR_SHARE = 0.25;
/** Each backoff delay is this much longer than the previous one. */
const BACKOFF_FACTOR = 1.5;
/** Far-away delays are shortened by less: jobs of different lengths drift apart anyway, and each poll counts. */
const FAR_JITTER = 0.1;

/** @internal Consecutive polls that saw one progress value: the value and the sum of their times. */
export interface ValueRun {
  progress: number;
  timeSum: number;
  count: number;
}

/** @internal What a wait remembers of its polls: a few value runs and the verdicts drawn from them. */
export interface PollHistory {
  /** The last `FIT_WINDOW` runs of the current series (since the last null or restart). */
  readonly runs: readonly ValueRun[];
  /** Polls that found the job running past its estimated end, plus restarts. */
  readonly misses: number;
  /** The current estimate of when progress reaches 100; undefined when there is none. */
  readonly finishAt: number | undefined;
  /** Polls in a row that left no estimate: how far the backoff has grown. */
  readonly blindPolls: number;
}

/** @internal A wait that has seen nothing yet. */
export const EMPTY_HISTORY: PollHistory = { runs: [], misses: 0, finishAt: undefined, blindPolls: 0 };

/** @internal The history after one more poll of a job that is still running. */
export function recordPoll(history: PollHistory, { at, progress }: PollObservation): PollHistory {
  if (progress == null) return { ...history, runs: [], finishAt: undefined, blindPolls: history.blindPolls + 1 };
  let { runs, misses } = history;
  const previous = runs.at(-1)?.progress;
  if (previous !== undefined && progress < previous - BACKWARD_TOLERANCE) {
    // A job that went backwards (restarted): its earlier pace says nothing now.
    misses++;
    runs = [];
  } else if (history.finishAt !== undefined && at >= history.finishAt) {
    misses++;
  }
  const last = runs.at(-1);
  runs =
    last?.progress === progress
      ? [...runs.slice(0, -1), { progress, timeSum: last.timeSum + at, count: last.count + 1 }]
      : [...runs, { progress, timeSum: at, count: 1 }].slice(-FIT_WINDOW);
  // Once the estimate has missed `MAX_MISSES` times it is not trusted again during this wait.
  const finishAt = misses < MAX_MISSES ? fitFinish(runs) : undefined;
  return { runs, misses, finishAt, blindPolls: finishAt === undefined ? history.blindPolls + 1 : 0 };
}

/** @internal The next poll, from the history so far. */
export function planPoll(history: PollHistory, now: number, options: PollScheduleOptions, random: () => number = Math.random): PollPlan {
  const { finishAt, blindPolls } = history;
  if (finishAt === undefined) return { delay: backoffDelay(Math.max(blindPolls - 1, 0), options, random), finishAt };
  const untilFinish = finishAt - now;
  // Far from the end: as sparse as allowed, each poll refining the estimate. Near it: land just after it.
  if (untilFinish > options.maxPollInterval) return { delay: Math.round(options.maxPollInterval * (1 - FAR_JITTER * random())), finishAt };
  return { delay: Math.round(Math.max(untilFinish, options.pollInterval * NEAR_SHARE)), finishAt };
}

/** @internal The `step`-th backoff delay (0 = `pollInterval`), capped at `maxPollInterval`, shortened by jitter. */
export function backoffDelay(step: number, options: PollScheduleOptions, random: () => number = Math.random): number {
  return backoff(step + 1, options.pollInterval, options.maxPollInterval, random, BACKOFF_FACTOR);
}

/**
 * When the Theil-Sen line (median of pairwise slopes, median intercept) through the runs reaches 100;
 * undefined when progress is not rising. A run counts once, at its polls' mean time, so dense polls (a
 * server hint) weigh no more than sparse ones. An integer percentage stands for anything up to the next
 * one, so each value counts as half a point more.
 * @internal
 */
export function fitFinish(runs: readonly ValueRun[]): number | undefined {
  const points = runs.map(({ progress, timeSum, count }) => ({ at: timeSum / count, value: Math.min(progress + 0.5, 100) }));
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const [a, b] = [points[i], points[j]] as [(typeof points)[number], (typeof points)[number]];
      if (b.at !== a.at) slopes.push((b.value - a.value) / (b.at - a.at));
    }
  }
  const slope = median(slopes);
  if (slope === undefined || !(slope > 0)) return undefined;
  const intercept = median(points.map(({ at, value }) => value - slope * at)) as number;
  const finishAt = (100 - intercept) / slope;
  return Number.isFinite(finishAt) ? finishAt : undefined;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Headers a server may use to say when to poll again (delay-seconds or an HTTP-date). */
const POLL_HINT_HEADERS = ['retry-after', 'x-poll-after'];
/** Server hints are stretched by up to this fraction, so jobs given the same hint do not poll in step. */
const HINT_JITTER = 0.1;
/** How far past the estimated end a poll that waits longer than the hint lands, as a share of the hint. */
const AIM_MARGIN = 0.25;
/** The shortest delay a server hint can ask for, so that a broken or hostile server cannot make a wait spin. */
const MIN_HINT_MS = 50;

/** @internal Milliseconds until the next poll when the server said when to come back (`hint` ms). */
export function hintedDelay(hint: number, random = Math.random): number {
  return Math.round(Math.max(hint, MIN_HINT_MS) * (1 + HINT_JITTER * random()));
}

/**
 * @internal The delay when the server said when to come back (`hinted` ms, jitter included) and progress says the
 * job ends in `untilFinish` ms. A later poll is always allowed: when that end falls between the hinted poll and the
 * one after, the hinted poll would most likely find the job running and the next would come up to a hint late, so
 * the poll goes a quarter of a hint after the end instead. Otherwise the hint. An end estimated too late costs at most one hint;
 * the misses `recordPoll` counts drop an estimate that keeps failing.
 */
export function delayWithinHint(hinted: number, untilFinish: number | undefined): number {
  if (untilFinish === undefined) return hinted;
  // Integer progress places the end only to within a point or so: aim a little after it, not at it.
  const aim = untilFinish + hinted * AIM_MARGIN;
  return aim > hinted && aim <= 2 * hinted ? Math.round(aim) : hinted;
}

/** @internal The first poll hint found in response headers, in ms. */
export function pollHint(headers: RawHeaders): number | undefined {
  for (const name of POLL_HINT_HEADERS) {
    const hint = parseRetryAfter(header(headers, name));
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/**
 * @internal A wait between two polls: the clock reading it started at and its history, whose times are relative
 * to that start. Relative times keep the numbers small when the history crosses processes on a wall clock.
 */
export interface WaitState {
  readonly startedAt: number;
  readonly history: PollHistory;
}

/** @internal A wait starting at `now`, that has seen nothing yet. */
export const startWait = (now: number): WaitState => ({ startedAt: now, history: EMPTY_HISTORY });

/**
 * @internal One look at a job still running, seen at `seenAt`, folded into `state`, and the next poll planned at
 * `now`. A server's hint (ms) sets the delay, or a longer one that lands just after the plan's estimate of the end
 * (`delayWithinHint`); that estimate (`finishAt`, on the caller's clock) stays. The one step behind `waitForCompletion` and `videos.poll`.
 */
export function stepWait(
  state: WaitState,
  seen: PollObservation,
  now: number,
  hint: number | undefined,
  options: PollScheduleOptions,
  random: () => number = Math.random,
): { state: WaitState; plan: PollPlan } {
  const { startedAt } = state;
  const history = recordPoll(state.history, { at: seen.at - startedAt, progress: seen.progress });
  const plan = planPoll(history, now - startedAt, options, random);
  const untilFinish = plan.finishAt === undefined ? undefined : plan.finishAt - (now - startedAt);
  const delay = hint === undefined ? plan.delay : delayWithinHint(hintedDelay(hint, random), untilFinish);
  return { state: { startedAt, history }, plan: { delay, finishAt: plan.finishAt === undefined ? undefined : plan.finishAt + startedAt } };
}
