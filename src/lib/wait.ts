import { APIError, APIUserAbortError, AvatarVideoError, VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import type { Answer } from '../internal/api-promise.js';
import { apiPath } from '../internal/path.js';
import type { RequestOptions } from '../internal/request-options.js';
import { backoff, isRetryable } from '../internal/retry.js';
import { sleep } from '../internal/sleep.js';
import type { HTTPPort } from '../internal/transport.js';
import { type Video, VideoSchema } from '../schemas.js';
import { hintedDelay, pollHint } from './poll-hint.js';
import { EMPTY_HISTORY, type PollHistory, type PollPlan, planPoll, recordPoll } from './poll-schedule.js';

/** What a wait knows besides the video itself, passed to `onProgress`. */
export interface WaitProgress {
  /**
   * Seconds until the job should finish, estimated from how its progress moved over the recent polls
   * (0 once COMPLETE). Undefined while there is no estimate: progress null, standing still, going
   * backwards, or an estimate that kept being wrong. An estimate, not a promise.
   */
  etaSeconds?: number;
}

/** Options of `videos.waitForCompletion` and of the helpers built on it. */
export interface WaitOptions {
  /**
   * Sets the pace of polling, in ms. Near the job's estimated end, polls are a quarter of this apart
   * (never closer). Without usable progress it is the first delay, growing by half each poll up to
   * `maxPollInterval`.
   * @default 2000
   */
  pollInterval?: number;
  /**
   * Longest computed delay between polls, in ms: the gap while the job's end is still far. A server
   * hint (`Retry-After`, `x-poll-after`) may ask for longer.
   * @default 10000
   */
  maxPollInterval?: number;
  /**
   * Deadline of the whole wait, in ms: then `WaitTimeoutError`, and the job keeps running on the service.
   * Each poll is one request, bounded by the client's `timeout` (one attempt's time) as every request is.
   * @default 600000 (10 minutes)
   */
  waitTimeout?: number;
  /** Stops the wait at once, during a poll or a sleep, with `APIUserAbortError`. @default undefined */
  signal?: AbortSignal;
  /**
   * Called with the video when it is first seen and whenever its status or progress changes, and with
   * the wait's estimate of the time left (`etaSeconds`). An exception thrown here ends the wait with it.
   * @default undefined
   */
  onProgress?: (video: Video, progress: WaitProgress) => void;
}

/**
 * @internal Time and chance for a wait. The SDK uses the real ones; tests pass a virtual clock (as the hidden
 * option `[WAIT_CLOCK]` of `waitForCompletion`) so that they check the schedule without measuring wall time.
 */
export interface WaitClock {
  now(): number;
  /** Resolves after `ms`; rejects at once when `signal` fires. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls `fire` after `ms`; returns a function that cancels it. */
  after(ms: number, fire: () => void): () => void;
  random(): number;
}

/** @internal Key of the hidden wait option that replaces the real clock (tests only). */
export const WAIT_CLOCK = Symbol('avatar-video.waitClock');

const realClock: WaitClock = {
  now: () => performance.now(),
  sleep,
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
  random: Math.random,
};

/** Longest delay a Node timer accepts (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(value: number, name: string): number {
  if (!(value > 0 && value <= MAX_TIMER_MS)) {
    throw new AvatarVideoError(`${name} must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${value}.`);
  }
  return value;
}

/** A video as one answer showed it, with that answer's hint for the next poll (ms), if it gave one. */
export interface SeenVideo {
  video: Video;
  hint: number | undefined;
}

/** A wait's settled options and its running state, shared by the steps of the loop. */
interface Wait {
  http: HTTPPort;
  id: string;
  clock: WaitClock;
  schedule: { pollInterval: number; maxPollInterval: number };
  waitTimeout: number;
  deadline: number;
  /** Fires at the deadline or when the caller aborts; stops the poll, the core's retry sleep, or our sleep. */
  controller: AbortController;
  signal: AbortSignal | undefined;
  onProgress: WaitOptions['onProgress'];
  history: PollHistory;
  reported: string | undefined;
  last: Video | undefined;
  lastError: unknown;
}

/**
 * Poll a job until it is COMPLETE (returned), FAILED or CANCELLED (thrown), or the deadline passes.
 * `initial` is a video already in hand (from create), with the poll hint its answer carried: it counts as the
 * first poll.
 * @internal Use `client.videos.waitForCompletion`.
 */
export async function waitForVideo(http: HTTPPort, id: string, options: WaitOptions = {}, initial?: SeenVideo): Promise<Video> {
  const clock = (options as { [WAIT_CLOCK]?: WaitClock })[WAIT_CLOCK] ?? realClock;
  const pollInterval = positive(options.pollInterval ?? 2_000, 'pollInterval');
  const maxPollInterval = Math.max(positive(options.maxPollInterval ?? 10_000, 'maxPollInterval'), pollInterval);
  const waitTimeout = positive(options.waitTimeout ?? 600_000, 'waitTimeout');
  const { signal, onProgress } = options;
  if (signal?.aborted) throw new APIUserAbortError('Wait was aborted.', { cause: signal.reason });

  const controller = new AbortController();
  const cancelDeadline = clock.after(waitTimeout, () => controller.abort(new Error('wait deadline')));
  const forwardAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forwardAbort, { once: true });
  const wait: Wait = {
    http,
    id,
    clock,
    waitTimeout,
    controller,
    signal,
    onProgress,
    schedule: { pollInterval, maxPollInterval },
    deadline: clock.now() + waitTimeout,
    history: EMPTY_HISTORY,
    reported: undefined,
    last: undefined,
    lastError: undefined,
  };
  try {
    return await pollUntilSettled(wait, initial);
  } finally {
    cancelDeadline();
    signal?.removeEventListener('abort', forwardAbort);
  }
}

async function pollUntilSettled(wait: Wait, initial: SeenVideo | undefined): Promise<Video> {
  const { clock, controller } = wait;
  let fresh = initial?.video;
  let seenAt = clock.now();
  let hint = initial?.hint;
  let failures = 0;
  for (let round = 0; ; round++) {
    let delay = 0;
    if (fresh) {
      const plan = settleOrPlan(wait, fresh, seenAt);
      if (!plan) return fresh;
      delay = hint === undefined ? plan.delay : hintedDelay(hint, clock.random);
    } else if (round > 0) {
      // The last poll failed (after the transport's own retries): back off from pollInterval, as the retry policy does.
      const { pollInterval, maxPollInterval } = wait.schedule;
      delay = hint === undefined ? backoff(failures, pollInterval, maxPollInterval, clock.random) : hintedDelay(hint, clock.random);
    }
    // Without a video in hand, the first poll goes out at once.
    if (delay > 0) await clock.sleep(Math.min(delay, wait.deadline - clock.now()), controller.signal).catch((e) => interrupted(wait, e));
    const remaining = wait.deadline - clock.now();
    if (remaining <= 0) throw new WaitTimeoutError(wait.id, wait.last, wait.waitTimeout, { cause: wait.lastError });
    const sentAt = clock.now();
    try {
      const answer = await retrieveVideo(wait.http, wait.id, {
        signal: controller.signal,
        timeout: Math.min(wait.http.timeout, remaining),
      });
      fresh = answer.data;
      hint = pollHint(answer.headers);
      // The server looked at the job somewhere between sending and answering.
      seenAt = (sentAt + clock.now()) / 2;
      wait.lastError = undefined;
      failures = 0;
    } catch (error) {
      if (controller.signal.aborted) interrupted(wait, error);
      // The core already retried this poll; a failure it calls transient (5xx, 429, a dropped
      // connection) must not end a wait that may last minutes. Anything else (401, 403, 404) does.
      if (!isRetryable('read', error)) throw error;
      wait.http.logger.info(`polling video ${wait.id} failed (${(error as Error).message}); polling again`);
      wait.lastError = error;
      failures++;
      fresh = undefined;
      hint = error instanceof APIError ? pollHint(error.headers) : undefined;
    }
  }
}

/**
 * Take in a fresh video: report it, end the wait on a final status (undefined = COMPLETE; FAILED and
 * CANCELLED throw), otherwise plan the next poll from the progress seen so far.
 */
function settleOrPlan(wait: Wait, video: Video, seenAt: number): PollPlan | undefined {
  wait.last = video;
  const running = video.status !== 'COMPLETE' && video.status !== 'FAILED' && video.status !== 'CANCELLED';
  // PROCESSING, or a status this SDK does not know yet: keep polling.
  if (running) wait.history = recordPoll(wait.history, { at: seenAt, progress: video.progress });
  const now = wait.clock.now();
  const plan = running ? planPoll(wait.history, now, wait.schedule, wait.clock.random) : undefined;
  const state = `${video.status}/${video.progress ?? ''}`;
  if (state !== wait.reported) {
    wait.reported = state;
    wait.onProgress?.(video, { etaSeconds: etaSeconds(video, plan, now) });
  }
  if (video.status === 'FAILED') throw new VideoFailedError(video);
  if (video.status === 'CANCELLED') throw new VideoCancelledError(video);
  return plan;
}

function etaSeconds(video: Video, plan: PollPlan | undefined, now: number): number | undefined {
  if (video.status === 'COMPLETE') return 0;
  if (plan?.finishAt === undefined) return undefined;
  return Math.round(Math.max(plan.finishAt - now, 0) / 100) / 10;
}

/** Turns a failure caused by our own controller into the error the caller should see. */
function interrupted(wait: Wait, error: unknown): never {
  const { signal, controller } = wait;
  if (signal?.aborted)
    throw error instanceof APIUserAbortError ? error : new APIUserAbortError('Wait was aborted.', { cause: signal.reason });
  if (controller.signal.aborted) throw new WaitTimeoutError(wait.id, wait.last, wait.waitTimeout, { cause: wait.lastError });
  throw error;
}

/** @internal GET one video, with the response it came in (its headers may hint when to poll next). Throws at once for a bad id. */
export function retrieveVideo(http: HTTPPort, id: string, options?: RequestOptions): Promise<Answer<Video>> {
  return http.request({ method: 'GET', path: apiPath`v1/videos/${id}`, kind: 'read' }, VideoSchema, options);
}
