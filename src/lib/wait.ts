import { APIError, APIUserAbortError, VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import { abortError } from '../internal/abort.js';
import { whenAborted } from '../internal/abort-listener.js';
import { isRetryable } from '../internal/retry.js';
import { sleep } from '../internal/sleep.js';
import type { Video } from '../schemas.js';
import type { Endpoints, JobContext } from './endpoints.js';
import {
  backoffDelay,
  hintedDelay,
  type PollPlan,
  type PollScheduleOptions,
  pollHint,
  startWait,
  stepWait,
  type WaitState,
} from './poll-schedule.js';
import { countPoll } from './tracing.js';

/** What a wait knows besides the video itself, passed to `onProgress`. */
export interface WaitProgress {
  /**
   * Seconds until the job should finish, estimated from how its progress moved over the recent polls
   * (0 once COMPLETE). Undefined while there is no estimate: the job not started yet (QUEUED, or a status this SDK
   * does not know), progress null, standing still, going backwards, or an estimate that kept being wrong. An
   * estimate, not a promise.
   */
  etaSeconds?: number | undefined;
}

/** Options of `videos.waitForCompletion` and of the helpers built on it. */
export interface WaitOptions {
  /**
   * Sets the pace of polling, in ms. Near the job's estimated end, polls are a quarter of this apart
   * (never closer). Without usable progress it is the first delay, growing by half each poll up to
   * `maxPollInterval`.
   * @default 2000
   */
  pollInterval?: number | undefined;
  /**
   * Longest computed delay between polls, in ms: the gap while the job's end is still far. A server
   * hint (`Retry-After`, `x-poll-after`) may ask for longer.
   * @default 10000
   */
  maxPollInterval?: number | undefined;
  /**
   * Deadline of the wait for one job, in ms: then `WaitTimeoutError`, and the job keeps running on the service. The
   * same on every method: where a call makes several jobs (one made again, a long video's segments, a batch's items),
   * each job's wait has its own; a deadline on a whole call is `signal: AbortSignal.timeout(ms)`. Each poll is one
   * request, bounded by the client's `timeout` (one attempt's time) as every request is.
   * @default 600000 (10 minutes)
   */
  waitTimeout?: number | undefined;
  /** Stops the wait at once, during a poll or a sleep, with `APIUserAbortError`. @default undefined */
  signal?: AbortSignal | undefined;
  /**
   * Called with the video when it is first seen and whenever its status or progress changes (QUEUED to
   * PROCESSING included), and with the wait's estimate of the time left (`etaSeconds`). An exception thrown here ends the wait with it.
   * @default undefined
   */
  onProgress?: ((video: Video, progress: WaitProgress) => void) | undefined;
}

/**
 * Poll a job until it is COMPLETE (returned), FAILED or CANCELLED (thrown), or the deadline passes.
 * `initial` is a video already in hand (from create), with the poll hint (ms) its answer carried: it counts as the
 * first poll.
 * @internal Use `client.videos.waitForCompletion`.
 */
export async function waitForVideo(
  api: Pick<Endpoints, 'retrieve'>,
  context: Pick<JobContext, 'timeout' | 'logger'>,
  id: string,
  options: WaitOptions = {},
  initial?: { video: Video; hint: number | undefined },
): Promise<Video> {
  const wait = new Wait(api, context, id, options);
  const { signal } = options;
  if (signal?.aborted) wait.interrupted(undefined);
  const deadline = setTimeout(() => wait.controller.abort(new Error('wait deadline')), wait.waitTimeout);
  const forgetSignal = whenAborted(signal, () => wait.controller.abort(signal?.reason));
  try {
    return await wait.pollUntilSettled(initial?.video, initial?.hint);
  } finally {
    clearTimeout(deadline);
    forgetSignal();
  }
}

/** A wait's settled options and what it has seen so far. */
class Wait {
  readonly schedule: PollScheduleOptions;
  readonly waitTimeout: number;
  readonly deadline: number;
  /** Fires at the deadline or when the caller aborts; stops the poll, the core's retry sleep, or our sleep. */
  readonly controller = new AbortController();
  state: WaitState;
  /** The status and progress `onProgress` was last called for. */
  reported: string | undefined;
  last: Video | undefined;
  lastError: unknown;

  constructor(
    readonly api: Pick<Endpoints, 'retrieve'>,
    readonly context: Pick<JobContext, 'timeout' | 'logger'>,
    readonly id: string,
    readonly options: WaitOptions,
  ) {
    this.schedule = scheduleOf(options);
    this.waitTimeout = options.waitTimeout ?? 600_000;
    this.state = startWait(performance.now());
    this.deadline = this.state.startedAt + this.waitTimeout;
  }

  async pollUntilSettled(fresh: Video | undefined, hint: number | undefined): Promise<Video> {
    const { schedule } = this;
    let seenAt = performance.now();
    let failures = 0;
    for (;;) {
      const plan = fresh && this.settleOrPlan(fresh, seenAt, hint);
      if (fresh && !plan) return fresh;
      // Without a video in hand, the first poll goes out at once; after a failed one (the transport's own retries
      // spent), back off from pollInterval as the retry policy does. A server's hint wins over both.
      let delay = 0;
      if (plan) delay = plan.delay;
      else if (hint !== undefined) delay = hintedDelay(hint);
      // A failed poll backs off on the schedule's own curve: one curve for every poll of a wait.
      else if (failures > 0) delay = backoffDelay(failures - 1, schedule);
      if (delay > 0)
        await sleep(Math.min(delay, this.deadline - performance.now()), this.controller.signal).catch((e) => this.interrupted(e));
      const remaining = this.deadline - performance.now();
      if (remaining <= 0) throw this.timedOut();
      const sentAt = performance.now();
      countPoll();
      try {
        const answer = await this.api.retrieve(this.id, {
          signal: this.controller.signal,
          timeout: Math.min(this.context.timeout, remaining),
        });
        fresh = answer.data;
        hint = pollHint(answer.headers);
        // The server looked at the job somewhere between sending and answering.
        seenAt = (sentAt + performance.now()) / 2;
        this.lastError = undefined;
        failures = 0;
      } catch (error) {
        if (this.controller.signal.aborted) this.interrupted(error);
        // A failure the core calls transient (5xx, 429, a dropped connection) must not end a wait that may last
        // minutes. Anything else (401, 403, 404) does.
        if (!isRetryable('read', error)) throw error;
        this.context.logger.info(`polling video ${this.id} failed (${(error as Error).message}); polling again`);
        this.lastError = error;
        failures++;
        fresh = undefined;
        hint = error instanceof APIError ? pollHint(error.headers) : undefined;
      }
    }
  }

  /**
   * Take in a fresh video: report it, end the wait on a final status (undefined = COMPLETE; FAILED and
   * CANCELLED throw), otherwise plan the next poll from the progress seen so far and the server's `hint`.
   */
  settleOrPlan(video: Video, seenAt: number, hint: number | undefined): PollPlan | undefined {
    this.last = video;
    const now = performance.now();
    let plan: PollPlan | undefined;
    if (!isSettled(video)) {
      ({ state: this.state, plan } = stepWait(this.state, { at: seenAt, progress: runningProgress(video) }, now, hint, this.schedule));
    }
    const state = `${video.status}/${video.progress ?? ''}`;
    if (state !== this.reported) {
      this.reported = state;
      const finishAt = video.status === 'COMPLETE' ? now : plan?.finishAt;
      const etaSeconds = finishAt === undefined ? undefined : Math.round(Math.max(finishAt - now, 0) / 100) / 10;
      this.options.onProgress?.(video, { etaSeconds });
    }
    if (video.status === 'FAILED') throw new VideoFailedError(video);
    if (video.status === 'CANCELLED') throw new VideoCancelledError(video);
    return plan;
  }

  /** Turns a failure caused by our own controller (or a signal aborted before the start) into the error the caller should see. */
  interrupted(error: unknown): never {
    const { signal } = this.options;
    if (signal?.aborted) {
      throw error instanceof APIUserAbortError ? error : abortError(signal, 'Wait');
    }
    if (this.controller.signal.aborted) throw this.timedOut();
    throw error;
  }

  timedOut(): WaitTimeoutError {
    return new WaitTimeoutError(this.id, this.last, this.waitTimeout, { cause: this.lastError });
  }
}

/** @internal Whether a job has ended: COMPLETE, FAILED or CANCELLED. QUEUED, PROCESSING, or a status this SDK does not know yet, has not. */
export function isSettled(video: Video): boolean {
  return video.status === 'COMPLETE' || video.status === 'FAILED' || video.status === 'CANCELLED';
}

/**
 * @internal The progress the schedule fits, of a job not settled: PROCESSING's own. A job QUEUED, or in a status this
 * SDK does not know, has not started as far as the estimate goes (null, whatever it reports): the time it waits to
 * start says nothing of its pace once started, and a progress of 0 while it waits would make the fit lag.
 */
export function runningProgress(video: Pick<Video, 'status' | 'progress'>): number | null | undefined {
  return video.status === 'PROCESSING' ? video.progress : null;
}

/** @internal The schedule's options, defaults applied (the values were checked where the caller passed them). */
export function scheduleOf(options: Pick<WaitOptions, 'pollInterval' | 'maxPollInterval'>): PollScheduleOptions {
  const pollInterval = options.pollInterval ?? 2_000;
  return { pollInterval, maxPollInterval: Math.max(options.maxPollInterval ?? 10_000, pollInterval) };
}
