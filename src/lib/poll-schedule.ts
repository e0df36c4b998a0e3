/**
 * When to poll a running job next, from the progress it reported so far. Pure: the same observations,
 * time, options and random numbers give the same plan.
 *
 * While progress moves, a straight line fitted (robustly) through the last few polls says when it will
 * reach 100. Polls are then sparse while that moment is far (`maxPollInterval` apart) and aimed at it once
 * it is near, never closer together than a quarter of `pollInterval`. Without usable progress (null,
 * standing still, going backwards, or an estimate that keeps being wrong) the plan is plain backoff:
 * `pollInterval`, growing 1.5 times per poll up to `maxPollInterval`, shortened by jitter.
 */

/** One look at a job that was still running: when it was taken, in ms on the wait's clock, and its progress. */
export interface PollObservation {
  at: number;
  /** 0-100 as reported; null or undefined when the job did not say. */
  progress: number | null | undefined;
}

export interface PollScheduleOptions {
  /** First backoff delay, in ms; a quarter of it is the shortest gap between two polls. */
  pollInterval: number;
  /** Longest gap between polls, in ms. */
  maxPollInterval: number;
}

export interface PollPlan {
  /** Milliseconds from `now` until the next poll. */
  delay: number;
  /** When progress should reach 100, on the wait's clock; undefined when progress gives no estimate. */
  finishAt: number | undefined;
}

/** Polls fitted at once: enough to outvote one odd reading, few enough to follow a change of pace. */
const FIT_WINDOW = 5;
/** Polls that find the job running after its estimated end (or progress going backwards) before the estimate is dropped. */
const MAX_MISSES = 3;
/** A drop in progress larger than this many points is a restart, not noise in the readings. */
const BACKWARD_TOLERANCE = 3;
/** The shortest gap between polls, as a share of `pollInterval`. */
const NEAR_SHARE = 0.25;
/** Each backoff delay is this much longer than the previous one. */
const BACKOFF_FACTOR = 1.5;
/** Backoff delays are shortened by up to this fraction, so waits started together drift apart. */
const JITTER = 0.25;
/** Far-away delays are shortened by less: jobs of different lengths drift apart anyway, and each poll counts. */
const FAR_JITTER = 0.1;

/** @internal The plan for the next poll, given every observation of this wait so far (oldest first). */
export function planNextPoll(
  observations: readonly PollObservation[],
  now: number,
  options: PollScheduleOptions,
  random: () => number = Math.random,
): PollPlan {
  const { finishAt, blindPolls } = assess(observations);
  if (finishAt === undefined) return { delay: backoffDelay(Math.max(blindPolls - 1, 0), options, random), finishAt };
  const untilFinish = finishAt - now;
  // Far from the end: as sparse as allowed, each poll refining the estimate. Near it: land just after it.
  if (untilFinish > options.maxPollInterval) return { delay: Math.round(options.maxPollInterval * (1 - FAR_JITTER * random())), finishAt };
  return { delay: Math.round(Math.max(untilFinish, options.pollInterval * NEAR_SHARE)), finishAt };
}

/** @internal The `step`-th backoff delay (0 = `pollInterval`), capped at `maxPollInterval`, shortened by jitter. */
export function backoffDelay(step: number, options: PollScheduleOptions, random: () => number = Math.random): number {
  const interval = Math.min(options.pollInterval * BACKOFF_FACTOR ** step, options.maxPollInterval);
  return Math.round(interval * (1 - JITTER * random()));
}

/**
 * Replays the observations: the current estimate of the finish, and how many polls in a row had none
 * (which sets how far the backoff has grown). Once the estimate has missed `MAX_MISSES` times it is
 * not trusted again during this wait.
 */
function assess(observations: readonly PollObservation[]): { finishAt: number | undefined; blindPolls: number } {
  let seriesStart = 0;
  let misses = 0;
  let finishAt: number | undefined;
  let blindPolls = 0;
  observations.forEach((observation, index) => {
    const previous = observations[index - 1]?.progress;
    if (observation.progress == null) {
      seriesStart = index + 1;
    } else if (previous != null && index > seriesStart && observation.progress < previous - BACKWARD_TOLERANCE) {
      // A job that went backwards (restarted, or reports noise): its earlier pace says nothing now.
      misses++;
      seriesStart = index;
    } else if (finishAt !== undefined && observation.at >= finishAt) {
      misses++;
    }
    const window = observations.slice(Math.max(seriesStart, index + 1 - FIT_WINDOW), index + 1);
    finishAt = misses < MAX_MISSES ? estimateFinish(window) : undefined;
    blindPolls = finishAt === undefined ? blindPolls + 1 : 0;
  });
  return { finishAt, blindPolls };
}

/**
 * When the Theil-Sen line (median of pairwise slopes, median intercept) through the points reaches 100;
 * undefined when progress is not rising. An integer percentage stands for anything up to the next one,
 * so each reading counts as half a point more: a little early beats a little late, which costs a delay.
 */
export function estimateFinish(points: readonly PollObservation[]): number | undefined {
  const readings = points.flatMap(({ at, progress }) => (progress == null ? [] : [{ at, value: Math.min(progress + 0.5, 100) }]));
  const slopes: number[] = [];
  for (let i = 0; i < readings.length; i++) {
    for (let j = i + 1; j < readings.length; j++) {
      const [a, b] = [readings[i], readings[j]] as [(typeof readings)[number], (typeof readings)[number]];
      if (b.at !== a.at) slopes.push((b.value - a.value) / (b.at - a.at));
    }
  }
  const slope = median(slopes);
  if (slope === undefined || !(slope > 0)) return undefined;
  const intercept = median(readings.map(({ at, value }) => value - slope * at)) as number;
  const finishAt = (100 - intercept) / slope;
  return Number.isFinite(finishAt) ? finishAt : undefined;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
