import { type AvatarVideoError, VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import type { Answer } from '../internal/api-promise.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import { checkOutputPath } from '../internal/output-path.js';
import type { CreateHooks, RequestOptions } from '../internal/request-options.js';
import { DEFAULT_JOB_ATTEMPTS } from '../internal/retry.js';
import { type JobTrace, traceJob } from '../internal/tracing.js';
import type { HTTPPort } from '../internal/transport.js';
import type { Video } from '../schemas.js';
import { type DownloadProgress, downloadVideo } from './download.js';
import { type JobStage, namingJob, nextCall } from './job-error.js';
import { type JobPlaces, type JobPlan, makeJob, OUTSIDE_LIMIT } from './make-job.js';
import type { VideoCreateParams } from './media/prepare.js';
import { pollHint } from './poll-schedule.js';
import { type WaitOptions, waitForVideo } from './wait.js';

/**
 * Options of `videos.createAndWait`. `timeout`, `maxRetries`, `maxRetryDelay` and `headers` apply to the
 * create request (its upload), as they do on `create`; `waitTimeout` bounds the wait that follows;
 * `signal` stops either.
 */
export interface CreateAndWaitOptions extends WaitOptions, Omit<CreateOptions, 'signal'> {
  /**
   * Awaited after each create is answered (the first and any made again), before the first poll: store the id
   * here, and a crash at any later point leaves a job to take up (`generate`'s `videoId`), not one paid for twice.
   * If it throws, the call rejects with that error (wrapped when it is not the SDK's), carrying `videoId`.
   * @default undefined
   */
  onCreated?: ((video: Video) => void | Promise<void>) | undefined;
}

/**
 * Options of `videos.generate`. `signal` covers the whole run: upload, wait and download. `timeout` and
 * `maxRetries` apply to the download's requests too; the polls keep the client's.
 */
export interface GenerateOptions extends CreateAndWaitOptions {
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
   * Awaited when a create is answered 429, with its `Retry-After` in ms (undefined without one), before any retry.
   * If it throws, `generate` rejects with exactly that error and no job was created (a queue's own rate-limit
   * error goes back to the queue); if it returns, the create is retried as `maxRetries` allows.
   * @default undefined
   */
  onThrottled?: ((retryAfterMs: number | undefined) => void | Promise<void>) | undefined;
  /**
   * `'external'` runs the job outside the client's limit on jobs running at once (a queue already limits them): it
   * waits for no place, takes none, and the client's limit does not learn from its create. A job FAILED for a rate
   * limit is then created again at once: the outside limit paces the account's jobs, and a pause would leave its
   * place idle.
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

/** Options of `videos.create`. */
export interface CreateOptions extends RequestOptions {
  /** Check formats and durations locally before uploading. @default true */
  validate?: boolean | undefined;
}

/** @internal What createAndWait and generate use: the HTTP port, the resource's create, the client's job limiter. */
export interface JobPort {
  http: HTTPPort;
  /** `videos.create`, with the response it came in (its headers may hint when to poll first). */
  create(params: VideoCreateParams, options: CreateOptions & CreateHooks): Promise<Answer<Video>>;
  limiter: ConcurrencyLimiter;
}

/** What `makeVideo` takes of generate's own options. */
type JobOptions = Pick<GenerateOptions, 'videoId' | 'onThrottled' | 'jobLimit'>;

/**
 * @internal The engine of `videos.createAndWait`: a create, then a wait, under a permit of the client's job limiter
 * that covers the job's life. Errors after the create name the job and the call that goes on from `stage`.
 */
export function createAndWait(
  jobs: JobPort,
  params: VideoCreateParams,
  options: CreateAndWaitOptions,
  stage: JobStage = 'running',
): Promise<Video> {
  return traceJob(jobTrace(jobs, 'createAndWait', {}), (job) => makeVideo(jobs, params, options, stage, 1, job));
}

/** The payload of a job's trace, at its start. */
function jobTrace(jobs: JobPort, operation: JobTrace['operation'], options: JobOptions): () => JobTrace {
  return () => ({
    operation,
    videoId: options.videoId,
    polls: 0,
    jobLimit: options.jobLimit === 'external' ? undefined : jobs.limiter.limit,
  });
}

/** `job` told of the outcome `error` says, or `video`'s status. */
function traceOutcome(job: JobTrace | undefined, video: Video | undefined, error?: unknown): void {
  if (!job) return;
  const ended = video ?? (error as { video?: Video } | undefined)?.video;
  job.outcome = error instanceof VideoFailedError || error instanceof VideoCancelledError || !error ? ended?.status : undefined;
}

/**
 * A video's job made by `makeJob`: the one `videoId` names, else created (then `onCreated` awaited before the first
 * poll), and waited on; made again after the failures retry.ts says, `maxAttempts` jobs at most. A refused create is
 * left to its request's retries. Errors after a create name the job and the call that goes on from `stage`.
 */
async function makeVideo(
  jobs: JobPort,
  params: VideoCreateParams,
  options: CreateAndWaitOptions & JobOptions,
  stage: JobStage,
  maxAttempts: number,
  job?: JobTrace,
): Promise<Video> {
  const { timeout, maxRetries, maxRetryDelay, headers, validate, signal, videoId, onCreated, onThrottled, jobLimit, ...wait } = options;
  const places = jobPlacesFor(jobs, jobLimit);
  const request = { timeout, maxRetries, maxRetryDelay, headers, validate, signal, onThrottled, jobFeedback: !places.outside };
  // The create's answer counts as the first poll, its hint included.
  let first: { video: Video; hint: number | undefined } | undefined;
  let ended = 0;
  const plan: JobPlan = {
    resume: videoId,
    create: async () => {
      const created = await jobs.create(params, request);
      first = { video: created.data, hint: pollHint(created.headers) };
      if (job) job.videoId = created.data.id;
      try {
        // Awaited before anything else can fail: the caller stores the id of a job it now pays for.
        await onCreated?.(created.data);
      } catch (error) {
        throw stranded(jobs, error, created.data.id, stage);
      }
      return created.data.id;
    },
    wait: async (id) => {
      const initial = first?.video.id === id ? first : undefined;
      first = undefined;
      try {
        return await waitForVideo(jobs.http, id, { ...wait, signal }, initial);
      } catch (error) {
        throw stranded(jobs, error, id, stage);
      }
    },
    ended: async () => ++ended,
  };
  try {
    const video = await makeJob(plan, { places, maxAttempts, signal, aborted: 'The call was aborted.', recreateRefused: false });
    traceOutcome(job, video);
    return video;
  } catch (error) {
    traceOutcome(job, undefined, error);
    throw error;
  }
}

/** The places a job takes: the client's limiter, or none (`jobLimit: 'external'`). */
function jobPlacesFor(jobs: JobPort, jobLimit: GenerateOptions['jobLimit']): JobPlaces {
  // Checked at the public boundary (internal/arguments.ts): 'client', 'external' or undefined.
  return jobLimit === 'external' ? OUTSIDE_LIMIT : jobs.limiter;
}

/**
 * `error`, which stopped a call after job `id` was created, naming the job and the call that goes on from `stage`.
 * A job error carries the video; any other (an abort, a 401) must not leave the paid job unnamed, even in the log.
 */
function stranded(jobs: JobPort, error: unknown, id: string, stage: JobStage): AvatarVideoError {
  if (!(error instanceof VideoFailedError || error instanceof VideoCancelledError || error instanceof WaitTimeoutError)) {
    jobs.http.logger.warn(
      `video ${id} was created, but the call stopped (${(error as Error).message}); the job may still be running on the service: wait for it again by its id`,
    );
  }
  return namingJob(error, id, nextCall(id, stage));
}

/**
 * @internal The engine of `videos.generate`: `output` checked, then the job made (taken up, or created and made again
 * as a batch's item is), then the download.
 */
export async function generate(jobs: JobPort, params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult> {
  await checkOutputPath(options.output);
  return traceJob(jobTrace(jobs, 'generate', options), (job) => makeAndSave(jobs, params, options, job));
}

/** generate's job, made then saved. */
async function makeAndSave(jobs: JobPort, params: VideoCreateParams, options: GenerateOptions, job: JobTrace | undefined) {
  const { output, onDownloadProgress, ...rest } = options;
  const video = await makeVideo(jobs, params, rest, 'running-then-save', DEFAULT_JOB_ATTEMPTS, job);
  try {
    const { signal, timeout, maxRetries } = options;
    const { path, bytes } = await downloadVideo(jobs.http, video, output, { signal, timeout, maxRetries, onProgress: onDownloadProgress });
    return { video, path, bytes };
  } catch (error) {
    jobs.http.logger.warn(`video ${video.id} is COMPLETE but saving it failed; call videos.download('${video.id}', ...) to retry`);
    throw namingJob(error, video.id, nextCall(video.id, 'complete'));
  }
}
