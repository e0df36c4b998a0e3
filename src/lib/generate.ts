import { VideoCancelledError, VideoFailedError, WaitTimeoutError } from '../errors.js';
import type { Answer } from '../internal/api-promise.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import { checkOutputPath } from '../internal/output-path.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { HTTPPort } from '../internal/transport.js';
import type { Video } from '../schemas.js';
import { type DownloadProgress, downloadVideo } from './download.js';
import { type JobStage, namingJob, nextCall } from './job-error.js';
import type { VideoCreateParams } from './media/prepare.js';
import { pollHint } from './poll-schedule.js';
import { type WaitOptions, waitForVideo } from './wait.js';

/**
 * Options of `videos.createAndWait`. `timeout`, `maxRetries`, `maxRetryDelay` and `headers` apply to the
 * create request (its upload), as they do on `create`; `waitTimeout` bounds the wait that follows;
 * `signal` stops either.
 */
export interface CreateAndWaitOptions extends WaitOptions, Omit<CreateOptions, 'signal'> {}

/**
 * Options of `videos.generate`. `signal` covers the whole run: upload, wait and download. `timeout` and
 * `maxRetries` apply to the download's requests too; the polls keep the client's.
 */
export interface GenerateOptions extends CreateAndWaitOptions {
  /** Where to save the MP4. A file already there is replaced only once the new one is complete. */
  output: string;
  /** Download progress, for a progress bar. @default undefined */
  onDownloadProgress?: ((progress: DownloadProgress) => void) | undefined;
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
  create(params: VideoCreateParams, options: CreateOptions): Promise<Answer<Video>>;
  limiter: ConcurrencyLimiter;
}

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
  const { timeout, maxRetries, maxRetryDelay, headers, validate, signal, ...wait } = options;
  return jobs.limiter.run(
    async () => {
      const created = await jobs.create(params, { timeout, maxRetries, maxRetryDelay, headers, validate, signal });
      const { id } = created.data;
      try {
        // The create's answer counts as the first poll, its hint included.
        return await waitForVideo(jobs.http, id, { ...wait, signal }, { video: created.data, hint: pollHint(created.headers) });
      } catch (error) {
        // A job error carries the video; any other (an abort, a 401) must not leave the paid job unnamed.
        if (!(error instanceof VideoFailedError || error instanceof VideoCancelledError || error instanceof WaitTimeoutError)) {
          jobs.http.logger.warn(
            `video ${id} was created, but the wait for it stopped (${(error as Error).message}); the job may still be running on the service: wait for it again by its id`,
          );
        }
        throw namingJob(error, id, nextCall(id, stage));
      }
    },
    { signal },
  );
}

/** @internal The engine of `videos.generate`: `output` checked, then createAndWait, then the download. */
export async function generate(jobs: JobPort, params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult> {
  const { output, onDownloadProgress, ...rest } = options;
  await checkOutputPath(output);
  const video = await createAndWait(jobs, params, rest, 'running-then-save');
  try {
    const { signal, timeout, maxRetries } = options;
    const { path, bytes } = await downloadVideo(jobs.http, video, output, { signal, timeout, maxRetries, onProgress: onDownloadProgress });
    return { video, path, bytes };
  } catch (error) {
    jobs.http.logger.warn(`video ${video.id} is COMPLETE but saving it failed; call videos.download('${video.id}', ...) to retry`);
    throw namingJob(error, video.id, nextCall(video.id, 'complete'));
  }
}
