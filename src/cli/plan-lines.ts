import type { AvatarVideo } from '../index.js';
import { earliestFinishSeconds } from '../internal/create-rate.js';

type VideoPlan = AvatarVideo.VideoPlan;

// A plan (videos.plan) in a person's words, and the time a run has left at the create rate: for `generate --dry-run`,
// `batch --dry-run`, the line a real batch prints before it starts, and its progress.

/** `8 jobs, 96 billed seconds, about 4 minutes at 2 creates a minute`. */
export function planLine(plan: VideoPlan): string {
  const { jobs, billedSeconds, earliestFinishSeconds: seconds, assumes } = plan;
  const time = jobs === 0 ? 'nothing to make' : `about ${formatDuration(seconds)} at ${formatRate(assumes.createRate)}`;
  return `${count(jobs, 'job')}, ${number(billedSeconds)} billed seconds, ${time}`;
}

/**
 * One line per item (its name, jobs, audio and billed seconds, its segments; or its problems, as `problems` words
 * them), then the plan's line and what it assumes. `name` names an item: its key, or the audio file for one video.
 */
export function planLines(
  plan: VideoPlan,
  name: (item: AvatarVideo.PlannedItem) => string,
  problems: (item: AvatarVideo.PlannedItem) => string[],
): string[] {
  const width = Math.max(0, ...plan.items.map((item) => name(item).length));
  const lines = plan.items.flatMap((item) => {
    if (item.problems.length > 0) return problems(item);
    const parts = item.segments.length > 1 ? ` in segments of ${item.segments.map((s) => s.durationSeconds.toFixed(1)).join(' + ')} s` : '';
    return [
      `${name(item).padEnd(width)}  ${count(item.jobs, 'job')}, ${(item.audioSeconds ?? 0).toFixed(1)} s of audio, ${number(item.billedSeconds)} billed seconds${parts}`,
    ];
  });
  const { assumes } = plan;
  const rate = assumes.createRateSource === 'declared' ? 'declared' : "the service's published rate; declare yours with --create-rate";
  const job = { option: 'as given', measured: 'as measured', default: "the spec's typical time" }[assumes.jobSecondsSource];
  return [
    ...lines,
    planLine(plan),
    `assumes ${formatRate(assumes.createRate)} (${rate}), ${number(assumes.jobSeconds)} s a job (${job}), billing in ${number(assumes.billingIncrementSeconds)} s steps`,
    'dry run: nothing was sent',
  ];
}

/**
 * The create rate the CLI's times assume: the client's gate's (declared, or learned from the service's 429s) once it
 * knows one, else the plan's (declared, else the published 2 a minute).
 */
export function rateForTimes(plan: VideoPlan, gate?: AvatarVideo.CreateRateState): AvatarVideo.CreateRate {
  return gate?.rate ?? plan.assumes.createRate;
}

/**
 * Seconds a run has left with `jobsLeft` jobs not yet finished: the least the create rate lets them take, from the
 * moment the gate lets the next create go when it holds one back.
 */
export function secondsLeft(plan: VideoPlan, jobsLeft: number, gate?: AvatarVideo.CreateRateState, now = Date.now()): number {
  const held = gate?.nextCreateAt ? Math.max(0, gate.nextCreateAt.getTime() - now) / 1000 : 0;
  return held + earliestFinishSeconds(jobsLeft, rateForTimes(plan, gate), plan.assumes.jobSeconds);
}

/** `45 seconds`, `4 minutes`, `2 h 5 min`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return count(whole, 'second');
  const minutes = Math.round(whole / 60);
  return minutes < 90 ? count(minutes, 'minute') : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const WINDOWS: Record<number, string> = { 1: 'a second', 60: 'a minute', 3600: 'an hour' };

/** `2 creates a minute`, `1 create every 6 s`. */
export function formatRate(rate: AvatarVideo.CreateRate): string {
  return `${count(rate.limit, 'create')} ${WINDOWS[rate.windowSeconds] ?? `every ${number(rate.windowSeconds)} s`}`;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
/** At most two decimals, none when whole. */
const number = (n: number) => String(Number(n.toFixed(2)));
