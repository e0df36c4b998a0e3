/**
 * One step of a wait, for callers that cannot hold a process for minutes (a Lambda, a workflow step): retrieve the
 * job once and say when to look again. What the scheduler observed travels as a small JSON value, so the next step,
 * in another process and hours later, plans exactly as `waitForCompletion` would have.
 */
import { checkArgument } from '../internal/arguments.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Video } from '../schemas.js';
import type { Endpoints } from './endpoints.js';
import { pollHint, startWait, stepWait, type WaitState } from './poll-schedule.js';
import { isSettled, runningProgress, scheduleOf, type WaitOptions } from './wait.js';

/** Options of `videos.poll`: the request's, and the schedule's (pass the same ones at every step). */
export interface PollOptions extends RequestOptions, Pick<WaitOptions, 'pollInterval' | 'maxPollInterval'> {}

/**
 * What one `videos.poll` leaves for the next: a plain JSON value (`JSON.stringify` it, store it anywhere, pass back
 * what `JSON.parse` gives). Its fields are the scheduler's and may change between versions; `v` says which.
 */
export interface PollState {
  /** The version of this layout. A state of another version is refused with `InvalidArgumentError`. */
  readonly v: 1;
  /** The video it schedules; a state is refused for any other. */
  readonly videoId: string;
  /** When the wait started: milliseconds since the epoch (a wall clock, as the steps run in different processes). */
  readonly startedAt: number;
  /** Polls made so far, this one included. */
  readonly polls: number;
  /** The scheduler's observations: runs of one progress value as `[progress, sum of times, count]`, times from `startedAt`. */
  readonly runs: ReadonlyArray<readonly [number, number, number]>;
  readonly misses: number;
  readonly blindPolls: number;
  /** The estimated end, from `startedAt`; null without one. */
  readonly finishAt: number | null;
}

/** One step's outcome. `done` jobs have no next poll; read `video.status` (and `video.error`) for how it ended. */
export type PollResult =
  | { video: Video; done: true; nextPollAfterMs: undefined; state: PollState }
  | { video: Video; done: false; nextPollAfterMs: number; state: PollState };

/** The version `videos.poll` writes and reads. */
const VERSION = 1;
const METHOD = 'videos.poll';

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
const isTime = (n: unknown): n is number => Number.isFinite(n);
const isRun = (run: unknown) => Array.isArray(run) && run.length === 3 && isTime(run[0]) && isTime(run[1]) && isCount(run[2]) && run[2] > 0;
/** More value runs than the scheduler keeps (5) is damage; the bound keeps a forged state from making the fit slow. */
const MAX_RUNS = 16;
const FIELDS = ['v', 'videoId', 'startedAt', 'polls', 'runs', 'misses', 'blindPolls', 'finishAt'].sort().join();

/** Whether `s`, a state of this version, holds what `writeState` writes and nothing else. */
function isWhole(s: Record<string, unknown>): boolean {
  const { videoId, startedAt, polls, runs, misses, blindPolls, finishAt } = s;
  return (
    Object.keys(s).sort().join() === FIELDS &&
    typeof videoId === 'string' &&
    isTime(startedAt) &&
    [polls, misses, blindPolls].every(isCount) &&
    (finishAt === null || isTime(finishAt)) &&
    Array.isArray(runs) &&
    runs.length <= MAX_RUNS &&
    runs.every(isRun)
  );
}

/** @internal The engine of `videos.poll`: one retrieve, then the plan `waitForCompletion` would make. */
export async function pollVideo(
  api: Pick<Endpoints, 'retrieve'>,
  id: string,
  previous: unknown,
  options: PollOptions,
): Promise<PollResult> {
  const { pollInterval, maxPollInterval, ...request } = options;
  // The wall clock, not `performance.now()` (which starts at each process's start): the steps run in different processes.
  const known = previous === undefined ? { wait: startWait(Date.now()), polls: 0 } : readState(previous, id);
  const sentAt = Date.now();
  const answer = await api.retrieve(id, request);
  const video = answer.data;
  const polls = known.polls + 1;
  if (isSettled(video)) return { video, done: true, nextPollAfterMs: undefined, state: writeState(id, known.wait, polls) };
  // The server looked at the job somewhere between sending and answering.
  const seen = { at: (sentAt + Date.now()) / 2, progress: runningProgress(video) };
  const schedule = scheduleOf({ pollInterval, maxPollInterval });
  const { state, plan } = stepWait(known.wait, seen, Date.now(), pollHint(answer.headers), schedule);
  return { video, done: false, nextPollAfterMs: plan.delay, state: writeState(id, state, polls) };
}

function writeState(videoId: string, { startedAt, history }: WaitState, polls: number): PollState {
  const runs = history.runs.map(({ progress, timeSum, count }) => [progress, timeSum, count] as const);
  const { misses, blindPolls, finishAt } = history;
  return { v: VERSION, videoId, startedAt, polls, runs, misses, blindPolls, finishAt: finishAt ?? null };
}

/** `state` as a wait, refused with an `InvalidArgumentError` naming `state` when of another version, damaged or another video's. */
function readState(state: unknown, id: string): { wait: WaitState; polls: number } {
  const afresh = '(omit it to start the schedule afresh)';
  const fields = state as Record<string, unknown>;
  checkArgument(METHOD, 'state', state, [
    (s) => (s as { v?: unknown } | null)?.v === VERSION,
    `a videos.poll state of version ${VERSION} ${afresh}`,
  ]);
  checkArgument(METHOD, 'state', state, [() => isWhole(fields), `the state a previous videos.poll returned, unchanged ${afresh}`]);
  checkArgument(METHOD, 'state', state, [() => fields.videoId === id, `the state of video ${id}, not of another ${afresh}`]);
  const { startedAt, polls, runs, misses, blindPolls, finishAt } = state as PollState;
  const history = {
    runs: runs.map(([progress, timeSum, count]) => ({ progress, timeSum, count })),
    misses,
    blindPolls,
    finishAt: finishAt ?? undefined,
  };
  return { wait: { startedAt, history }, polls };
}
