import { RateLimitError, type VideoCancelledError, type VideoFailedError } from '../errors.js';
import { abortError } from '../internal/abort.js';
import type { ConcurrencyLimiter, JobPlace } from '../internal/concurrency-limiter.js';
import { sleep } from '../internal/sleep.js';
import type { Video } from '../schemas.js';
import type { CreateOptions, CreateUpload, Endpoints, JobContext } from './endpoints.js';
import { createAnswer, type JobFailure, jobFailure, limiterOutcome, MAX_UNREACHED_CREATES, recreateDelay } from './job-policy.js';
import type { VideoCreateParams } from './media/prepare.js';
import { pollHint } from './poll-schedule.js';
import { type WaitOptions, waitForVideo } from './wait.js';

/** What differs between the videos the runner makes (a `generate`, a batch item, a segment): their records. */
export interface JobPlan {
  /** The job an earlier run made, to wait on instead of creating one. */
  resume: string | undefined;
  /** What each create sends. */
  params: VideoCreateParams;
  /** Awaited before each create is sent (a ledger's `creating` line). @default undefined */
  creating?: (() => Promise<void>) | undefined;
  /**
   * Awaited as soon as a create is answered, before anything else can fail: record the job (a ledger, a manifest,
   * `onCreated`). What it throws ends the run, the job made.
   */
  created(video: Video): Promise<void>;
  /** How each job is waited on (without `signal`: the run's). */
  wait: Omit<WaitOptions, 'signal'>;
  /** Record a job that ended FAILED or CANCELLED; resolves to the jobs ended so far for this video. */
  ended(jobId: string, error: VideoFailedError | VideoCancelledError): Promise<number>;
}

/** How the runner makes the jobs of one video, the same for every caller. */
export interface JobRun {
  api: Endpoints;
  /** The client's limit (`context.limiter`), logger and `maxRetryDelay`. */
  context: JobContext;
  /** `'external'`: the job is outside the client's limit (a queue limits): it takes no place, and teaches it nothing. */
  jobLimit?: 'client' | 'external' | undefined;
  /** Jobs made for the video before it is given up. */
  maxJobAttempts: number;
  /** The create's request options. `maxRetries` is not among them: the runner alone sends a refused create again. */
  create: Pick<CreateOptions, 'timeout' | 'maxRetryDelay' | 'headers' | 'validate' | 'onUploadProgress'>;
  signal: AbortSignal | undefined;
  /** Stops a wait for a place (the caller's pool has failed), not a job already made. */
  stop?: AbortSignal | undefined;
  /** What the APIUserAbortError says was aborted when `signal` fires between jobs (`abortError`'s `what`). */
  aborted: string;
  /**
   * Awaited on each create answered 429, before the create waits at the gate again: `waitMs` is the server's
   * Retry-After, else the wait the gate learned (until its next create may go), else undefined. What it throws ends
   * the run as thrown, no job made.
   */
  onThrottled?: ((waitMs: number | undefined) => void | Promise<void>) | undefined;
  /** Told as a job takes (1) and gives back (-1) its place: a batch counts its running jobs. */
  onRunning?: ((delta: 1 | -1) => void) | undefined;
}

/**
 * Make one video's job until it is COMPLETE: take up the job `plan.resume` names, else create one, and wait for it,
 * holding a place of the client's limit from create to end (none with `jobLimit: 'external'`). Each create waits at
 * the client's create-rate gate (with either limit) and tells it its answer; it is sent once per try. A refused one
 * (429, 503, unsent) and a job FAILED for a rate limit or a fault of the service are made again within the budgets
 * of job-policy.ts, their delay waited without a place (a 429's none: the gate paces it). The limiter hears what happened to
 * each job (its create's answer, how it ended: `limiterOutcome`) through its place, from here and nowhere else.
 * Throws the last failure once the budgets are spent.
 */
export async function runJob(plan: JobPlan, run: JobRun): Promise<Video> {
  const limiter = run.jobLimit === 'external' ? undefined : run.context.limiter;
  const waitSignal = run.stop && run.signal ? AbortSignal.any([run.signal, run.stop]) : (run.stop ?? run.signal);
  const state: RunState = { jobId: plan.resume, upload: undefined, refused: 0 };
  try {
    for (;;) {
      if (run.signal?.aborted) throw abortError(run.signal, run.aborted);
      const started = performance.now();
      try {
        const job = (place?: JobPlace) => makeOnce(plan, run, state, place);
        return await (limiter ? limiter.run(job, { signal: waitSignal, resumed: state.jobId !== undefined }) : job());
      } catch (error) {
        const delay = await pauseBeforeNext(error, plan, run, state, limiter?.jobMs ?? performance.now() - started);
        if (delay > 0) await sleep(delay, run.signal, run.aborted);
      }
    }
  } finally {
    await state.upload?.close();
  }
}

/** What one video's run keeps between its tries. */
interface RunState {
  /** The job being made: taken up, or the last create's (undefined once it ended, or before a create). */
  jobId: string | undefined;
  /** The inputs, opened at the first create and sent by every later one. */
  upload: CreateUpload | undefined;
  /** Creates refused so far. */
  refused: number;
}

/**
 * One job, in its place (none outside the client's limit): created when none is in hand, then waited on, the create's
 * answer its first poll. The place is told how the job ended before it is given back.
 */
async function makeOnce(plan: JobPlan, run: JobRun, state: RunState, place: JobPlace | undefined): Promise<Video> {
  run.onRunning?.(1);
  try {
    const first = state.jobId === undefined ? await create(plan, run, state, place) : undefined;
    const video = await waitForVideo(run.api, run.context, state.jobId as string, { ...plan.wait, signal: run.signal }, first);
    place?.ended('completed');
    return video;
  } catch (error) {
    place?.ended(limiterOutcome(error));
    throw error;
  } finally {
    run.onRunning?.(-1);
  }
}

/**
 * Send one create (no retries of its own) once the create-rate gate lets it go, tell the gate and the place how it
 * was answered, record the job.
 */
async function create(plan: JobPlan, run: JobRun, state: RunState, place: JobPlace | undefined) {
  state.upload ??= await run.api.openCreate(plan.params, { validate: run.create.validate });
  // Before the ledger's `creating` line: a run stopped at the gate has sent nothing to be in doubt about.
  const ticket = await run.context.createGate.take(run.signal, run.aborted);
  const sentAt = place?.now();
  let video: Video;
  let hint: number | undefined;
  try {
    await plan.creating?.();
    const answer = await state.upload.send({ ...run.create, signal: run.signal, maxRetries: 0 });
    [video, hint] = [answer.data, pollHint(answer.headers)];
  } catch (error) {
    const retryAfter = error instanceof RateLimitError ? error.retryAfter : undefined;
    ticket.settle(createAnswer(error), retryAfter);
    // A probe of the gate refused without a Retry-After is about the rate's window alone, not about jobs at once.
    if (error instanceof RateLimitError && !(ticket.probe && retryAfter === undefined)) place?.throttled(retryAfter, sentAt);
    throw error;
  }
  ticket.settle('accepted');
  place?.admitted();
  state.jobId = video.id;
  // Awaited before anything else can fail: the caller records a job it now pays for.
  await plan.created(video);
  return { video, hint };
}

/**
 * The pause before the video's next job after `error`, waited without a place; rethrows `error` when job-policy.ts
 * makes no other. `jobMs` is how long jobs take: the limiter's smoothed figure, or outside it this try's own.
 */
async function pauseBeforeNext(error: unknown, plan: JobPlan, run: JobRun, state: RunState, jobMs: number | undefined) {
  const failure = jobFailure(error, state.jobId);
  if (failure === undefined) throw error;
  if (failure.kind === 'refused' && failure.throttled) await run.onThrottled?.(failure.retryAfterMs ?? run.context.createGate.waitMs);
  const tries =
    failure.kind === 'refused' ? ++state.refused : await plan.ended(state.jobId as string, error as VideoFailedError | VideoCancelledError);
  state.jobId = undefined;
  const delay = recreateDelay(failure, {
    tries,
    maxJobs: run.maxJobAttempts,
    maxRetryDelay: run.create.maxRetryDelay ?? run.context.maxRetryDelay,
    jobMs,
    outsideLimit: run.jobLimit === 'external',
  });
  if (delay === undefined) throw error;
  logRecreate(run.context.logger, failure, delay, (error as Error).message);
  return delay;
}

/** Loggers (one per client) already warned that a create could not connect: once, not once per video of a batch. */
const warnedUnreached = new WeakSet<JobContext['logger']>();

/**
 * Log the pause before the next job: at info, but a client's first create that could not connect is a warning, so that
 * a dead or stale base URL says so (in one line) during the seconds it takes to fail.
 */
function logRecreate(logger: JobContext['logger'], failure: JobFailure, delay: number, message: string): void {
  if (failure.kind === 'refused' && failure.unreached && !warnedUnreached.has(logger)) {
    warnedUnreached.add(logger);
    logger.warn(`could not connect: ${message} Trying again in ${delay} ms, ${MAX_UNREACHED_CREATES} times at most.`);
    return;
  }
  logger.info(`${failure.kind === 'refused' ? 'creating again' : 'making the job again'} in ${delay} ms after ${message}`);
}

/**
 * How many videos a call holds in hand at once (a batch's items, a long video's segments): its `concurrency`, or for
 * `'auto'` as many as the client's limit can ever let run. A width, never a second limit: the limiter places the jobs.
 */
export function workWidth(concurrency: number | 'auto' | undefined, limiter: Pick<ConcurrencyLimiter, 'bounds'>): number {
  return concurrency === undefined || concurrency === 'auto' ? limiter.bounds.max : concurrency;
}
