import { type AvatarVideoError, VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import { checkOutputPath } from '../internal/output-path.js';
import type { Video } from '../schemas.js';
import { type DownloadProgress, downloadVideo } from './download.js';
import type { CreateOptions, Endpoints, JobContext } from './endpoints.js';
import { type JobStage, namingJob, nextCall } from './job-error.js';
import { DEFAULT_JOB_ATTEMPTS, MAX_REFUSED_CREATES, MAX_UNREACHED_CREATES } from './job-policy.js';
import { type JobRun, runJob } from './job-runner.js';
import type { VideoCreateParams } from './media/prepare.js';
import { type JobTrace, traceJob } from './tracing.js';
import type { WaitOptions } from './wait.js';

export type { CreateOptions } from './endpoints.js';

/**
 * Where `maxRetries` applies, for the methods that take no `maxRetries` of their own (refused there, not ignored):
 * the job runner alone sends a job's refused create again.
 */
export const MAX_RETRIES_APPLIES = `a refused create is sent again by the job runner (up to ${MAX_REFUSED_CREATES} times, ${MAX_UNREACHED_CREATES} when no connection opened, and maxJobAttempts jobs), not by maxRetries; maxRetries applies to videos.create and the other endpoint methods, and to the downloads of generate, generateLong and download`;

/**
 * Options of `videos.createAndWait`. `timeout`, `maxRetryDelay` and `headers` apply to the create request (its
 * upload), as they do on `create`; a refused create (429, 503) is sent again by the job runner, waiting out its
 * `Retry-After` up to `maxRetryDelay`: there is no `maxRetries` here (one is refused with an `InvalidArgumentError`).
 * `waitTimeout` bounds the wait for each job; `signal` stops either.
 */
export interface CreateAndWaitOptions extends WaitOptions, Omit<CreateOptions, 'signal' | 'maxRetries'> {
  /**
   * Awaited after each create is answered (the first and any made again), before the first poll: store the id
   * here, and a crash at any later point leaves a job to take up (`generate`'s `videoId`), not one paid for twice.
   * If it throws, the call rejects with that error (wrapped when it is not the SDK's), carrying `videoId`.
   * @default undefined
   */
  onCreated?: ((video: Video) => void | Promise<void>) | undefined;
  /**
   * Jobs made for the video at most: a job that ends FAILED for a rate limit or a fault of the service (a code such
   * as `internal_error`) is created again, after a short backoff; any other failure is thrown at once (the same
   * inputs would most likely fail again, and be paid for again). The same option, and meaning, on every method that
   * makes videos. Refused creates (no job started) are not counted here: up to 20 are sent again.
   * @default 3
   */
  maxJobAttempts?: number | undefined;
}

/**
 * Options of `videos.generate`. `signal` covers the whole run: upload, wait and download. `timeout` applies to the
 * download's requests too, and `maxRetries` to them alone; the polls keep the client's.
 */
export interface GenerateOptions extends CreateAndWaitOptions {
  /**
   * Retries of each of the download's requests, for failures safe to repeat. Not of the create: the job runner sends
   * a refused one again (up to 20 times, twice when no connection opened), and no other may be sent twice.
   * @default the client's `maxRetries` (2)
   */
  maxRetries?: number | undefined;
  /** Where to save the MP4. A file already there is replaced only once the new one is complete. */
  output: string;
  /** Download progress, for a progress bar. @default undefined */
  onDownloadProgress?: ((progress: DownloadProgress) => void) | undefined;
  /**
   * Take up this job instead of creating one: wait for it and save it (a worker's retry after a crash, with the id
   * `onCreated` stored). If it ends FAILED for a rate limit, a job is created again, as for a new one.
   * @default undefined (a job is created)
   */
  videoId?: string | undefined;
  /**
   * Awaited when a create is answered 429, before any wait, with the wait in ms: the server's `Retry-After`, else
   * the wait the client's create-rate gate learned from the refusals (until its next create may go; `client.createRate`),
   * else undefined (the gate holds nothing back yet).
   * If it throws, `generate` rejects with exactly that error and no job was created (a queue's own rate-limit
   * error goes back to the queue, which can pause that long); if it returns, the create waits at the gate again.
   * @default undefined
   */
  onThrottled?: ((waitMs: number | undefined) => void | Promise<void>) | undefined;
  /**
   * `'external'` runs the job outside the client's limit on jobs running at once (a queue already limits them): it
   * waits for no place, takes none, and the client's limit does not learn from its create. A refused create waits
   * at the client's create-rate gate (which every create passes) holding the outside place; a job FAILED for a rate limit is created again at once: the outside
   * limit paces the account's jobs, and a pause would leave its place idle.
   * @default 'client'
   */
  jobLimit?: 'client' | 'external' | undefined;
}

export interface GenerateResult {
  /** The finished job. */
  video: Video;
  /** Absolute path of the saved MP4. */
  path: string;
  bytes: number;
}

/**
 * @internal The engine of `videos.createAndWait`: one video's job made by the job runner. Errors after a create
 * name the job and the call that goes on from `stage`.
 */
export function createAndWait(
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: CreateAndWaitOptions,
): Promise<Video> {
  return traceJob(jobTrace(context, 'createAndWait', {}), (job) => makeVideo(api, context, params, options, 'running', job));
}

/** The payload of a job's trace, at its start. */
function jobTrace(
  context: JobContext,
  operation: JobTrace['operation'],
  options: Pick<GenerateOptions, 'videoId' | 'jobLimit'>,
): () => JobTrace {
  return () => ({
    operation,
    videoId: options.videoId,
    polls: 0,
    jobLimit: options.jobLimit === 'external' ? undefined : context.limiter.limit,
  });
}

/** `job` told of the outcome `error` says, or `video`'s status. */
function traceOutcome(job: JobTrace | undefined, video: Video | undefined, error?: unknown): void {
  if (!job) return;
  const ended = video ?? (error as { video?: Video } | undefined)?.video;
  job.outcome = error instanceof VideoFailedError || error instanceof VideoCancelledError || !error ? ended?.status : undefined;
}

/**
 * A video's job, by the runner: the one `videoId` names, else created (then `onCreated` awaited before the first
 * poll), and waited on; made again after the failures job-policy.ts says, `maxJobAttempts` jobs at most. Errors while
 * a job is in hand name it and the call that goes on from `stage`.
 */
async function makeVideo(
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: Omit<GenerateOptions, 'output' | 'onDownloadProgress'>,
  stage: JobStage,
  job: JobTrace | undefined,
): Promise<Video> {
  const { timeout, maxRetryDelay, headers, validate, onUploadProgress, signal, videoId, onCreated, onThrottled, jobLimit } = options;
  const { pollInterval, maxPollInterval, waitTimeout, onProgress, maxJobAttempts = DEFAULT_JOB_ATTEMPTS } = options;
  // The job in hand: taken up or created, and not yet ended.
  let live = videoId;
  let ended = 0;
  const run: JobRun = {
    api,
    context,
    jobLimit,
    maxJobAttempts,
    create: { timeout, maxRetryDelay, headers, validate, onUploadProgress },
    signal,
    aborted: 'The call',
    onThrottled,
  };
  try {
    const video = await runJob(
      {
        resume: videoId,
        params,
        created: async (video) => {
          live = video.id;
          if (job) job.videoId = video.id;
          await onCreated?.(video);
        },
        wait: { pollInterval, maxPollInterval, waitTimeout, onProgress },
        ended: async () => {
          live = undefined;
          return ++ended;
        },
      },
      run,
    );
    traceOutcome(job, video);
    return video;
  } catch (error) {
    traceOutcome(job, undefined, error);
    // A job that ended names itself; any other error while a job is in hand names that job and how to go on.
    if (error instanceof VideoFailedError || error instanceof VideoCancelledError) throw namingJob(error, error.video.id);
    throw live === undefined ? error : stranded(context, error, live, stage);
  }
}

/**
 * `error`, which stopped a call after job `id` was created, naming the job and the call that goes on from `stage`.
 * A wait's timeout carries the video; any other (an abort, a 401) must not leave the paid job unnamed, even in the log.
 */
function stranded(context: JobContext, error: unknown, id: string, stage: JobStage): AvatarVideoError {
  if (!(error instanceof WaitTimeoutError)) {
    context.logger.warn(
      `video ${id} was created, but the call stopped (${(error as Error).message}); the job may still be running on the service: wait for it again by its id`,
    );
  }
  return namingJob(error, id, nextCall(id, stage));
}

/**
 * @internal The engine of `videos.generate`: `output` checked, then the job made (taken up, or created and made again
 * as a batch's item is), then the download.
 */
export async function generate(
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: GenerateOptions,
): Promise<GenerateResult> {
  await checkOutputPath(options.output);
  return traceJob(jobTrace(context, 'generate', options), (job) => makeAndSave(api, context, params, options, job));
}

/** generate's job, made then saved. */
async function makeAndSave(
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: GenerateOptions,
  job: JobTrace | undefined,
) {
  const { output, onDownloadProgress, ...rest } = options;
  const video = await makeVideo(api, context, params, rest, 'running-then-save', job);
  try {
    const { signal, timeout, maxRetries } = options;
    const { path, bytes } = await downloadVideo(api, context, video, output, { signal, timeout, maxRetries, onDownloadProgress });
    return { video, path, bytes };
  } catch (error) {
    // The error names the call that goes on; the log names the job in any caller's terms (the CLI's are not the SDK's).
    context.logger.warn(`video ${video.id} is COMPLETE, but saving it failed: save it again by its id, without paying twice`);
    throw namingJob(error, video.id, nextCall(video.id, 'complete'));
  }
}
