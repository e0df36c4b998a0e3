import { checkArgument, checkOptions, ITERABLE, pathTo, videoIdOf } from '../internal/arguments.js';
import { generateBatch } from '../lib/batch/generate-batch.js';
import type { BatchItem, BatchSummary, GenerateBatchOptions } from '../lib/batch/types.js';
import { type DownloadOptions, type DownloadResult, downloadVideo } from '../lib/download.js';
import type { JobContext } from '../lib/endpoints.js';
import { type GenerateOptions, type GenerateResult, generate } from '../lib/generate.js';
import { type GenerateLongOptions, type GenerateLongResult, generateLong } from '../lib/long/generate-long.js';
import { checkParams, type VideoCreateParams } from '../lib/media/prepare.js';
import { type PlanOptions, planVideos, type VideoPlan } from '../lib/plan/plan.js';
import type { VideoContent } from '../platform/node.js';
import type { Video } from '../schemas.js';
import type { VideoEndpoints } from './endpoints.js';
import { VideoCalls, type VideosParts } from './videos.js';

/**
 * `client.videos` on Node, Bun and Deno: the endpoint methods of `/v1/videos` and the waits every runtime has
 * (`AvatarVideo.VideoCalls`), inputs given as paths, streams or bytes, and the workflows that need a filesystem:
 * `download`, `generate`, `generateLong` and `generateBatch`, and `plan`, which reads the inputs those take.
 */
export class Videos extends VideoCalls<VideoCreateParams, VideoContent> {
  /** The endpoints the workflows take, as the calls they extend hold them. */
  readonly #api: VideoEndpoints;
  /** The client's state the workflows take beside the calls. */
  readonly #context: JobContext;

  /** @internal Built by the client, which owns the transport. */
  constructor(parts: unknown) {
    super(parts);
    ({ api: this.#api, context: this.#context } = parts as VideosParts);
  }

  /**
   * Save a COMPLETE video to `path`. Bytes go to a temporary file beside `path`, are checked (the announced
   * size, a type that is not a document, an MP4 whose top-level boxes add up), flushed to disk, then renamed
   * over `path`: a failed or aborted download never leaves a partial file there, nor touches a file already
   * there. A dropped connection is resumed with a byte range only when the first answer proved which file it
   * is; otherwise it starts over. For piping elsewhere (S3, an HTTP response), use `content`.
   * @param video An id (its status is checked first), or a video already COMPLETE.
   * @throws VideoNotReadyError when the video is not COMPLETE; nothing is downloaded.
   * @throws DownloadIntegrityError when what arrived is not the video (`reason`, `videoId`, `requestId`).
   */
  async download(video: string | Video, path: string, options?: DownloadOptions): Promise<DownloadResult> {
    const method = 'videos.download';
    videoIdOf(method, video);
    checkArgument(method, 'path', path, pathTo("the file to save to, e.g. 'video.mp4'"));
    return downloadVideo(this.#api, this.#context, video, path, checkOptions(method, options));
  }

  /**
   * Create a video, wait for it and save it to `output`: the whole workflow in one call.
   * `output` is checked before anything is created (its folder exists and is writable, it is not a folder).
   * Every error after the create carries the job's `videoId` and names the call that goes on with it: if saving
   * fails, the video is still COMPLETE on the service, so `download(id, output)` can be tried again without paying twice.
   * Like `createAndWait`, it shares the client's limit on jobs running at once: `Promise.all` of many calls starts
   * 2 jobs, then more as the service accepts them (`jobLimit: 'external'` leaves that to a queue of your own).
   * A job that ends FAILED for a rate limit or a fault of the service is created again, as a batch's item is
   * (`maxJobAttempts`, 3 jobs at most). For a worker that may crash: store the id in `onCreated`, and take the job up again with `videoId`.
   * @throws OutputPathError when `output` cannot be saved to; no request is sent.
   * @throws InvalidArgumentError for a `videoId` that is not an id or an unknown `jobLimit`; no request is sent.
   */
  async generate(params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult> {
    const method = 'videos.generate';
    return generate(this.#api, this.#context, checkParams(method, params), checkOptions(method, options, "{ output: 'video.mp4' }"));
  }

  /**
   * Make a video of any length: audio over `maxSegmentSeconds` is split at quiet points, the segments are
   * generated side by side (each job under the client's one limit, `jobConcurrency`), and their MP4s are joined without re-encoding. A manifest in `workDir`
   * records every job, so running the same call again after a crash, an abort or a failed segment resumes
   * without paying twice. Audio no longer than `maxSegmentSeconds` (the client's `limits.maxAudioSeconds`, 60 s unless
   * configured, as in a batch) is one ordinary `generate`. `onRunProgress` reports the run's phases and segments. `output` and `workDir` are checked
   * before anything is created; every error after a create carries a job's `videoId` and names the jobs made.
   * @throws OutputPathError when `output` or `workDir` cannot be saved to; no request is sent.
   */
  async generateLong(params: VideoCreateParams, options: GenerateLongOptions): Promise<GenerateLongResult> {
    const method = 'videos.generateLong';
    const checked = checkOptions(method, options, "{ output: 'long.mp4' }");
    return generateLong(this.#api, this.#context, checkParams(method, params), checked);
  }

  /**
   * Make many videos, one per item, each saved as `<outputDir>/<key>.mp4`. `outputDir` and every item are checked
   * before any job is created (`OutputPathError`; all item problems at once, as `BatchInputError`). An item whose
   * audio is longer than one job allows is made as `generateLong` makes it, its segments' jobs listed in its
   * result's `segmentVideoIds`. Jobs run as many at once as the client's limit lets (`jobConcurrency`, shared with
   * its other calls); a job FAILED for a rate limit or a fault of the service is created again (`maxJobAttempts`). A ledger in `outputDir` makes the call resumable: after a crash or
   * an abort, run it again over the same folder and no job is paid for twice. Items that fail are reported in the summary; they do not stop the batch.
   */
  async generateBatch(items: Iterable<BatchItem> | AsyncIterable<BatchItem>, options: GenerateBatchOptions): Promise<BatchSummary> {
    const method = 'videos.generateBatch';
    checkArgument(method, 'items', items, ITERABLE);
    const checked = checkOptions(method, options, "{ outputDir: 'videos' }");
    checkArgument(method, 'outputDir', checked.outputDir, pathTo("the folder to save to, e.g. 'videos'"));
    return generateBatch(this.#api, this.#context, items, checked, generateLong);
  }

  /**
   * What a run would take, found before paying and without any request: pass a batch's items (as `generateBatch`
   * takes them) or one video's create parameters (as `generateLong` takes them). Every input is checked as that call
   * checks it; audio longer than `maxSegmentSeconds` is planned in the segments its split would make. The plan gives
   * the jobs, the seconds of audio, the seconds billed (each job rounded up to the client's `billingIncrementSeconds`),
   * the earliest the run can finish at the create rate (declared, else the service's published 2 a minute) and each
   * item's jobs or problems: an item with problems is listed with them, and counts no job. Nothing is thrown for an
   * item's problems; the same items given to `generateBatch` would be refused (`BatchInputError`).
   * @example
   * const plan = await client.videos.plan(items);
   * console.log(`${plan.jobs} jobs, ${plan.billedSeconds} billed seconds, done in ${plan.earliestFinishSeconds} s at best`);
   */
  async plan(items: Iterable<BatchItem> | AsyncIterable<BatchItem> | VideoCreateParams, options?: PlanOptions): Promise<VideoPlan> {
    const method = 'videos.plan';
    const many = typeof items === 'object' && items !== null && (Symbol.iterator in items || Symbol.asyncIterator in items);
    const input = many ? checkArgument(method, 'items', items, ITERABLE) : checkParams(method, items as VideoCreateParams);
    return planVideos(this.#context, input, checkOptions(method, options));
  }
}
