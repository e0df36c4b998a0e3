import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { SegmentFailedError, VideoCancelledError, VideoFailedError } from '../../errors.js';
import { isSavedWhole } from '../../internal/atomic-file.js';
import { deprecatedOption } from '../../internal/deprecated.js';
import { diskError } from '../../internal/disk-error.js';
import { checkOutputPath } from '../../internal/output-path.js';
import type { RequestOptions } from '../../internal/request-options.js';
import { runPool } from '../../internal/run-pool.js';
import { shorten } from '../../internal/shorten.js';
import type { Video } from '../../schemas.js';
import { downloadVideo } from '../download.js';
import type { Endpoints, JobContext, UploadProgress } from '../endpoints.js';
import { generate } from '../generate.js';
import { namingJob } from '../job-error.js';
import { DEFAULT_JOB_ATTEMPTS } from '../job-policy.js';
import { type JobRun, runJob, workWidth } from '../job-runner.js';
import type { VideoCreateParams } from '../media/prepare.js';
import { validateCreateParams } from '../media/validate.js';
import type { WaitOptions } from '../wait.js';
import { joinVideos } from './join-videos.js';
import type { ManifestWriter, SegmentRecord } from './manifest.js';
import { withPinnedInputs } from './pin-inputs.js';
import { prepareWorkFolder, type WorkFolder } from './work-folder.js';

/**
 * Options of `videos.generateLong`. The wait options (`pollInterval`, `maxPollInterval`, `waitTimeout`) apply to
 * each segment's job; `timeout`, `maxRetryDelay` and `headers` to each segment's create, and `timeout` and
 * `maxRetries` to its download, as on `generate` (the polls keep the client's): a refused create is sent again by
 * the job runner, not by `maxRetries`. `signal` stops the whole run.
 */
export interface GenerateLongOptions extends Omit<WaitOptions, 'onProgress' | 'waitTimeout'>, Omit<RequestOptions, 'signal'> {
  /**
   * Deadline of each segment's wait, in ms, not of the whole run (segments wait side by side, and a rerun
   * resumes them). For a deadline on the whole run, pass `signal: AbortSignal.timeout(ms)`.
   * @default 600000 (10 minutes)
   */
  waitTimeout?: number | undefined;
  /**
   * Each create's upload (a segment's audio and the visual reference), as on `create`: segments uploaded side by side
   * each report their own body's `bytes` and `total`.
   * @default undefined
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
  /** Where to save the joined MP4: its folder must exist. Written to a temporary file and renamed into place. */
  output: string;
  /**
   * Segments in hand at once: how many this call makes side by side. Never a second limit on jobs: each segment's
   * job takes its place under the client's one limit (`jobConcurrency`) as any other job does. `'auto'` holds as
   * many as that limit can ever let run.
   * @default 'auto'
   */
  concurrency?: number | 'auto' | undefined;
  /**
   * Longest segment of audio per job, in seconds: audio no longer than this is one job. The same default as a batch's.
   * @default the client's `limits.maxAudioSeconds` (60 unless configured)
   */
  maxSegmentSeconds?: number | undefined;
  /**
   * Folder for the segment audio, the segment videos and `manifest.json`, created (with its parents) when missing.
   * Run the same call again with the same folder to resume: jobs already created are polled again, segments
   * already downloaded are reused.
   * @default a hidden folder beside `output`: `.<output name>.parts`
   */
  workDir?: string | undefined;
  /**
   * Jobs made per segment at most: a segment whose job FAILS for a rate limit or a fault of the service is created
   * again, as on `generate` and a batch's item; any other failure ends the call at once.
   * @default 3
   */
  maxJobAttempts?: number | undefined;
  /** @deprecated Use `maxJobAttempts` (the same number); it logs a warning once. @default 3 */
  maxSegmentAttempts?: number | undefined;
  /** Keep the work folder after success (it is always kept after a failure, for the rerun). @default false */
  keepWorkDir?: boolean | undefined;
  /**
   * The run's progress: its phase (split, segments, join), the share done overall, and each segment's state. Called
   * as each segment's job moves and as the phases change.
   * @default undefined
   */
  onRunProgress?: ((progress: LongProgress) => void) | undefined;
  /**
   * @deprecated Use `onRunProgress` (the same callback, the same argument); it logs a warning once. On this method
   * `onProgress` keeps this run-level meaning until the alias is removed in the next minor version.
   * @default undefined
   */
  onProgress?: ((progress: LongProgress) => void) | undefined;
}

export interface LongProgress {
  phase: 'split' | 'segments' | 'join' | 'done';
  /** Overall share done, 0 to 1, weighted by segment duration. */
  fraction: number;
  /**
   * Each segment: `pending` (no job yet), `created` (its job made, not being waited on now), `processing` (its job
   * being waited on), `downloaded` (its video saved in the work folder) or `failed`. The statuses are written out
   * here, not taken from the work folder's manifest, whose type is not published.
   */
  segments: Array<{
    index: number;
    status: 'pending' | 'created' | 'processing' | 'downloaded' | 'failed';
    progress: number;
    jobId: string | null;
  }>;
}

export interface GenerateLongResult {
  path: string;
  bytes: number;
  durationSeconds: number;
  /** The COMPLETE job of each segment, in order. */
  segments: Video[];
}

const SPLIT_SHARE = 0.05;
const JOIN_SHARE = 0.1;

/**
 * @internal The engine of `videos.generateLong`, and of a batch item too long for one job. Every segment's job is
 * made by the job runner under the client's limit; `onRunning` hears as each takes and gives back its place.
 */
export async function generateLong(
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: GenerateLongOptions,
  onRunning?: JobRun['onRunning'],
): Promise<GenerateLongResult> {
  // The joined MP4 is written last, after every segment is paid for: a save bound to fail must fail first.
  await checkOutputPath(options.output);
  const settings = runSettings(context, options);
  try {
    // Streams are read twice below (checked, then split or uploaded): spool them once first.
    return await withPinnedInputs(params, async (pinned) => {
      // Formats and the visual reference are checked once; the audio may be as long as it likes here.
      const checked = await validateCreateParams(pinned, { maxAudioSeconds: Number.POSITIVE_INFINITY });
      const durationSeconds = checked.audio.durationSeconds ?? 0;
      if (durationSeconds > settings.maxSegmentSeconds) {
        return await generateInSegments(pinned, options, { ...settings, api, context, onRunning });
      }
      const { requestOptions, waitOptions, maxJobAttempts, onRunProgress, onUploadProgress } = settings;
      const { output } = options;
      const one = { ...requestOptions, ...waitOptions, maxJobAttempts, onUploadProgress, output };
      const { video, path, bytes } = await generate(api, context, pinned, one);
      onRunProgress?.({ phase: 'done', fraction: 1, segments: [{ index: 0, status: 'downloaded', progress: 100, jobId: video.id }] });
      return { path, bytes, durationSeconds, segments: [video] };
    });
  } catch (error) {
    throw diskError(error, typeof options.output === 'string' ? resolve(options.output) : 'the long video');
  }
}

/** What each segment's calls take from the run's options: its create and retrieve, its wait, its download (as on `generate`). */
function runSettings(context: JobContext, options: GenerateLongOptions) {
  const { signal, timeout, maxRetries } = options;
  const maxJobAttempts = deprecatedOption(options, 'maxSegmentAttempts', 'maxJobAttempts', context.logger) ?? DEFAULT_JOB_ATTEMPTS;
  return {
    onRunProgress: deprecatedOption(options, 'onProgress', 'onRunProgress', context.logger),
    maxSegmentSeconds: options.maxSegmentSeconds ?? context.limits.maxAudioSeconds,
    requestOptions: { timeout, maxRetries, maxRetryDelay: options.maxRetryDelay, headers: options.headers, signal },
    onUploadProgress: options.onUploadProgress,
    waitOptions: { pollInterval: options.pollInterval, maxPollInterval: options.maxPollInterval, waitTimeout: options.waitTimeout },
    downloadOptions: { signal, timeout, maxRetries },
    maxJobAttempts,
    width: workWidth(options.concurrency, context.limiter),
  };
}

/** What every segment job of one long run shares. */
interface LongRun extends WorkFolder, ReturnType<typeof runSettings> {
  api: Endpoints;
  context: JobContext;
  onRunning: JobRun['onRunning'];
  /** Live progress (0 to 90) of the segments whose job runs, by index. */
  live: Map<number, number>;
  report: (phase: LongProgress['phase']) => void;
}

/** Audio too long for one job: split it in the work folder, make every segment's video, join them into `output`. */
async function generateInSegments(
  params: VideoCreateParams,
  options: GenerateLongOptions,
  shared: Omit<LongRun, keyof WorkFolder | 'live' | 'report'>,
): Promise<GenerateLongResult> {
  const outputPath = resolve(options.output);
  const workDir = resolve(options.workDir ?? join(dirname(outputPath), `.${basename(outputPath)}.parts`));
  const split = { maxSegmentSeconds: shared.maxSegmentSeconds, billingIncrementSeconds: shared.context.billingIncrementSeconds };
  const folder = await prepareWorkFolder(workDir, params, split, options.signal);
  const live = new Map<number, number>();
  const run: LongRun = { ...shared, ...folder, live, report: progressReporter(folder.writer, live, shared.onRunProgress) };
  run.report('split');
  try {
    // As many segments in hand as the width: the client's limiter decides how many jobs run, and `stop` ends the
    // waits for a place of the rest once one has failed.
    const { segments } = folder.writer.manifest;
    const results = await runPool(segments, run.width, (segment, _index, stop) => runSegment(run, segment, stop));
    run.report('join');
    const files = segments.map((s) => join(workDir, s.video ?? ''));
    const joined = await joinVideos(files, outputPath, { signal: options.signal, metadata: { segmentIds: results.map((v) => v.id) } });
    if (!options.keepWorkDir) await rm(workDir, { recursive: true, force: true });
    run.report('done');
    return { ...joined, segments: results };
  } catch (error) {
    throw namingRunJobs(diskError(error, outputPath), run);
  }
}

/**
 * A long run's error once jobs exist names them: a segment's error carries its job as `videoId` already, and the
 * message lists every job the work folder records, for the rerun that goes on without paying for them twice.
 */
function namingRunJobs(error: unknown, run: LongRun): unknown {
  // Its message names the last job and says how to resume already.
  if (error instanceof SegmentFailedError) return namingJob(error, error.jobId);
  const ids = run.writer.manifest.segments.flatMap((s) => (s.jobId === null ? [] : [s.jobId]));
  if (ids[0] === undefined) return error;
  const advice = `The segments' jobs (${ids.join(', ')}) are recorded in ${shorten(run.workDir)}: run the same generateLong call again to resume without paying for them twice.`;
  return namingJob(error, ids[0], advice);
}

/** Overall progress, weighted by segment duration, from the manifest and the live progress of the running jobs. */
function progressReporter(writer: ManifestWriter, live: Map<number, number>, onProgress: GenerateLongOptions['onRunProgress']) {
  return (phase: LongProgress['phase']) => {
    if (!onProgress) return;
    const total = writer.manifest.segments.reduce((sum, s) => sum + s.durationSeconds, 0) || 1;
    let done = 0;
    const segments = writer.manifest.segments.map((s) => {
      const progress = s.status === 'downloaded' ? 100 : (live.get(s.index) ?? 0);
      done += (s.durationSeconds / total) * (progress / 100);
      const status = live.has(s.index) && s.status !== 'downloaded' ? ('processing' as const) : s.status;
      return { index: s.index, status, progress, jobId: s.jobId };
    });
    const fraction = phase === 'done' ? 1 : SPLIT_SHARE + done * (1 - SPLIT_SHARE - JOIN_SHARE) + (phase === 'join' ? JOIN_SHARE / 2 : 0);
    onProgress({ phase, fraction, segments });
  };
}

/**
 * Bring one segment to a downloaded MP4: reuse it when an earlier run saved it, else take up its job or create one
 * with the job runner (as a batch's item is), then save it in the work folder.
 */
async function runSegment(run: LongRun, segment: SegmentRecord, stop: AbortSignal): Promise<Video> {
  const { signal, timeout, maxRetryDelay, headers } = run.requestOptions;
  if (segment.status === 'downloaded' && segment.jobId && (await isSavedWhole(join(run.workDir, segment.video ?? ''), segment.bytes))) {
    return (await run.api.retrieve(segment.jobId, run.requestOptions)).data;
  }
  const onProgress = (video: Video) => {
    run.live.set(segment.index, (video.progress ?? 0) * 0.9);
    run.report('segments');
  };
  try {
    const video = await runJob(
      {
        resume: segment.jobId ?? undefined,
        params: run.segmentParams(join(run.workDir, segment.audio)),
        // The signal stops a create while its upload is sent, never once it has left: the service may then have made
        // (and billed) the job, and only its answer can put the id in the manifest for a rerun to take up.
        created: async (created) => {
          Object.assign(segment, { jobId: created.id, status: 'created' });
          await run.writer.save(); // before anything else can fail: a rerun waits on it
        },
        wait: { ...run.waitOptions, onProgress },
        ended: (jobId, error) => recordFailedJob(run, segment, jobId, error),
      },
      {
        api: run.api,
        context: run.context,
        maxJobAttempts: run.maxJobAttempts,
        create: { timeout, maxRetryDelay, headers, onUploadProgress: run.onUploadProgress },
        signal,
        stop,
        aborted: 'Generation',
        onRunning: run.onRunning,
      },
    );
    return await saveSegment(run, segment, video);
  } catch (error) {
    if (error instanceof VideoFailedError || error instanceof VideoCancelledError)
      throw new SegmentFailedError(segment, run.workDir, error);
    throw segment.jobId === null ? error : namingJob(diskError(error, `segment ${segment.index}`), segment.jobId);
  }
}

/** Save the MP4 of the segment's COMPLETE job in the work folder. */
async function saveSegment(run: LongRun, segment: SegmentRecord, video: Video): Promise<Video> {
  const file = join(run.workDir, 'video', `segment-${String(segment.index).padStart(3, '0')}.mp4`);
  await mkdir(dirname(file), { recursive: true });
  const saved = await downloadVideo(run.api, run.context, video, file, run.downloadOptions);
  Object.assign(segment, { status: 'downloaded', video: relative(run.workDir, file), bytes: saved.bytes });
  await run.writer.save();
  run.live.delete(segment.index);
  run.report('segments');
  return video;
}

/** Record a FAILED or CANCELLED job so that a rerun creates the segment again; the segment's jobs ended so far. */
async function recordFailedJob(run: LongRun, segment: SegmentRecord, jobId: string, error: VideoFailedError | VideoCancelledError) {
  const failure =
    error instanceof VideoFailedError
      ? { code: error.code ?? 'FAILED', message: error.message }
      : { code: 'CANCELLED', message: 'the job was cancelled' };
  Object.assign(segment, { jobId: null, status: 'failed', attempts: segment.attempts + 1, error: { jobId, ...failure } });
  run.live.delete(segment.index);
  await run.writer.save();
  return segment.attempts;
}
