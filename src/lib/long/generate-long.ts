import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { APIUserAbortError, AvatarVideoError } from '../../errors.js';
import type { ConcurrencyLimiter } from '../../internal/concurrency-limiter.js';
import type { RequestOptions } from '../../internal/request-options.js';
import { openSource } from '../../internal/source.js';
import type { Video } from '../../schemas.js';
import type { Uploadable } from '../../uploads.js';
import { jobOutcome } from '../batch/permit.js';
import type { DownloadOptions, DownloadResult } from '../download.js';
import { VideoCancelledError, VideoFailedError } from '../errors.js';
import type { GenerateOptions, GenerateResult } from '../generate.js';
import type { VideoCreateParams } from '../media/prepare.js';
import { validateCreateParams } from '../media/validate.js';
import type { WaitOptions } from '../wait.js';
import { joinVideos } from './join-videos.js';
import { type LongManifest, ManifestWriter, readManifest, type SegmentRecord, sha256File } from './manifest.js';
import { pinOneShotInputs } from './pin-inputs.js';
import { splitAudio } from './split-audio.js';

/**
 * Options of `videos.generateLong`. The wait options (`pollInterval`, `maxPollInterval`, `waitTimeout`) apply to
 * each segment's job; the request options (`timeout`, `maxRetries`, `maxRetryDelay`, `headers`) to each request,
 * as on `create`; `signal` stops the whole run.
 */
export interface GenerateLongOptions extends Omit<WaitOptions, 'onProgress' | 'waitTimeout'>, Omit<RequestOptions, 'signal'> {
  /**
   * Deadline of each segment's wait, in ms, not of the whole run (segments wait side by side, and a rerun
   * resumes them). For a deadline on the whole run, pass `signal: AbortSignal.timeout(ms)`.
   * @default 600000 (10 minutes)
   */
  waitTimeout?: number;
  /** Where to save the joined MP4. Written to a temporary file and renamed into place. */
  output: string;
  /** Segments generated at once. @default 3 */
  concurrency?: number;
  /** Longest segment of audio per job, in seconds (the service's limit). @default 60 */
  maxSegmentSeconds?: number;
  /**
   * Folder for the segment audio, the segment videos and `manifest.json`. Run the same call again with the same
   * folder to resume: jobs already created are polled again, segments already downloaded are reused.
   * @default a hidden folder beside `output`: `.<output name>.parts`
   */
  workDir?: string;
  /** Jobs per segment before the call fails: a segment whose job FAILS or is CANCELLED is created again. @default 2 */
  maxSegmentAttempts?: number;
  /** Keep the work folder after success (it is always kept after a failure, for the rerun). @default false */
  keepWorkDir?: boolean;
  /** Overall progress across the split, the segments and the join. @default undefined */
  onProgress?: (progress: LongProgress) => void;
}

export interface LongProgress {
  phase: 'split' | 'segments' | 'join' | 'done';
  /** Overall share done, 0 to 1, weighted by segment duration. */
  fraction: number;
  segments: Array<{ index: number; status: SegmentRecord['status'] | 'processing'; progress: number; jobId: string | null }>;
}

export interface GenerateLongResult {
  path: string;
  bytes: number;
  durationSeconds: number;
  /** The COMPLETE job of each segment, in order. */
  segments: Video[];
}

/** A segment's jobs kept failing; earlier finished segments stay in the work folder for a rerun. */
export class SegmentFailedError extends AvatarVideoError {
  override name = 'SegmentFailedError';
  readonly segmentIndex: number;
  readonly jobId: string;
  readonly code: string | undefined;
  readonly workDir: string;
  constructor(segment: SegmentRecord, workDir: string, cause: Error) {
    super(
      `Segment ${segment.index} (${segment.startSeconds.toFixed(1)} s to ${(segment.startSeconds + segment.durationSeconds).toFixed(1)} s) failed ${segment.attempts} time(s); last job ${segment.error?.jobId}: ${segment.error?.code} ${segment.error?.message}. Finished segments are kept in ${workDir}: run the same call again to resume.`,
      { cause },
    );
    this.segmentIndex = segment.index;
    this.jobId = segment.error?.jobId ?? '';
    this.code = segment.error?.code;
    this.workDir = workDir;
  }
}

const SPLIT_SHARE = 0.05;
const JOIN_SHARE = 0.1;

/** @internal The video methods a long run uses; the `Videos` resource passes itself (lib never imports resources). */
export interface LongRunVideos {
  generate(params: VideoCreateParams, options: GenerateOptions): Promise<GenerateResult>;
  create(params: VideoCreateParams, options?: { signal?: AbortSignal }): Promise<Video>;
  retrieve(id: string, options?: { signal?: AbortSignal }): Promise<Video>;
  waitForCompletion(id: string, options?: WaitOptions): Promise<Video>;
  download(video: string | Video, path: string, options?: DownloadOptions): Promise<DownloadResult>;
}

/** @internal The engine of `videos.generateLong`. */
export async function generateLong(
  videos: LongRunVideos,
  params: VideoCreateParams,
  options: GenerateLongOptions,
  limiter: ConcurrencyLimiter,
): Promise<GenerateLongResult> {
  // Streams are read twice below (checked, then split or uploaded): spool them once first.
  const pinned = await pinOneShotInputs(params);
  try {
    return await generatePinned(videos, pinned.params, options, limiter);
  } finally {
    await pinned.dispose();
  }
}

async function generatePinned(
  videos: LongRunVideos,
  params: VideoCreateParams,
  options: GenerateLongOptions,
  limiter: ConcurrencyLimiter,
): Promise<GenerateLongResult> {
  const { output, concurrency = 3, maxSegmentSeconds = 60, maxSegmentAttempts = 2, keepWorkDir = false, onProgress, signal } = options;
  const waitOptions: WaitOptions = {
    pollInterval: options.pollInterval,
    maxPollInterval: options.maxPollInterval,
    waitTimeout: options.waitTimeout,
    signal,
  };
  const requestOptions: RequestOptions = {
    timeout: options.timeout,
    maxRetries: options.maxRetries,
    maxRetryDelay: options.maxRetryDelay,
    headers: options.headers,
    signal,
  };
  // Formats and the visual reference are checked once; the audio may be as long as it likes here.
  const checked = await validateCreateParams(params, { maxAudioSeconds: Number.POSITIVE_INFINITY });
  if ((checked.audio.durationSeconds ?? 0) <= maxSegmentSeconds) {
    const { video, path, bytes } = await videos.generate(params, { ...requestOptions, ...waitOptions, output });
    onProgress?.({ phase: 'done', fraction: 1, segments: [{ index: 0, status: 'downloaded', progress: 100, jobId: video.id }] });
    return { path, bytes, durationSeconds: checked.audio.durationSeconds ?? 0, segments: [video] };
  }

  const outputPath = resolve(output);
  const workDir = resolve(options.workDir ?? join(dirname(outputPath), `.${basename(outputPath)}.parts`));
  await mkdir(workDir, { recursive: true });
  const visualField = params.video_reference !== undefined ? 'video_reference' : 'image_reference';
  const audioPath = await materialise(params.audio_reference, join(workDir, 'input-audio'));
  const visualPath = await materialise(params[visualField] as Uploadable, join(workDir, 'input-visual'));
  const model = params.model ? { model: params.model } : {};
  const segmentParams = (audio: string): VideoCreateParams =>
    visualField === 'video_reference'
      ? { audio_reference: audio, video_reference: visualPath, ...model }
      : { audio_reference: audio, image_reference: visualPath, ...model };
  const input: LongManifest['input'] = {
    audioSha256: await sha256File(audioPath),
    visualSha256: await sha256File(visualPath),
    visualField,
    model: params.model ?? null,
    maxSegmentSeconds,
  };

  const existing = await readManifest(workDir);
  if (existing && JSON.stringify(existing.input) !== JSON.stringify(input)) {
    throw new AvatarVideoError(
      `${workDir} holds the jobs of a different long video (other audio, visual reference, model or segment length). Use another workDir, or remove it to start over.`,
    );
  }
  const writer = new ManifestWriter(workDir, existing ?? { version: 1, input, segments: [] });
  if (!existing || !(await segmentsIntact(workDir, existing))) {
    const split = await splitAudio(audioPath, { maxSegmentSeconds, outputDir: join(workDir, 'audio'), signal });
    const records = await Promise.all(
      split.segments.map(async (segment): Promise<SegmentRecord> => {
        const sha = await sha256File(segment.path);
        const previous = existing?.segments[segment.index];
        // Splitting is deterministic; a record is reused only for the very same segment audio.
        if (previous && previous.audioSha256 === sha) return previous;
        return {
          index: segment.index,
          audio: relative(workDir, segment.path),
          audioSha256: sha,
          startSeconds: segment.startSeconds,
          durationSeconds: segment.durationSeconds,
          jobId: null,
          status: 'pending',
          attempts: 0,
          video: null,
          bytes: null,
          error: null,
        };
      }),
    );
    writer.manifest.segments = records;
    await writer.save();
  }
  const report = (phase: LongProgress['phase'], live = new Map<number, number>()) => {
    if (!onProgress) return;
    const total = writer.manifest.segments.reduce((sum, s) => sum + s.durationSeconds, 0) || 1;
    let done = 0;
    const segments = writer.manifest.segments.map((s) => {
      const progress = s.status === 'downloaded' ? 100 : (live.get(s.index) ?? 0);
      done += (s.durationSeconds / total) * (progress / 100);
      return {
        index: s.index,
        status: live.has(s.index) && s.status !== 'downloaded' ? ('processing' as const) : s.status,
        progress,
        jobId: s.jobId,
      };
    });
    const fraction = phase === 'done' ? 1 : SPLIT_SHARE + done * (1 - SPLIT_SHARE - JOIN_SHARE) + (phase === 'join' ? JOIN_SHARE / 2 : 0);
    onProgress({ phase, fraction, segments });
  };

  report('split');

  const live = new Map<number, number>();
  const runSegment = async (segment: SegmentRecord): Promise<Video> => {
    if (segment.status === 'downloaded' && segment.jobId && (await sizeMatches(join(workDir, segment.video ?? ''), segment.bytes))) {
      return videos.retrieve(segment.jobId, requestOptions);
    }
    for (;;) {
      if (signal?.aborted) throw new APIUserAbortError('Generation was aborted.', { cause: signal.reason });
      // The client's limiter counts the segment's job from create to end; a job already made just joins the count.
      const permit = segment.jobId === null ? await limiter.acquire(signal) : limiter.adopt();
      try {
        if (segment.jobId === null) {
          const created = await videos.create(segmentParams(join(workDir, segment.audio)), requestOptions);
          segment.jobId = created.id;
          segment.status = 'created';
          await writer.save();
        }
        const jobId = segment.jobId;
        try {
          const video = await videos.waitForCompletion(jobId, {
            ...waitOptions,
            onProgress: (v) => {
              live.set(segment.index, (v.progress ?? 0) * 0.9);
              report('segments', live);
            },
          });
          permit.release('completed');
          const file = join(workDir, 'video', `segment-${String(segment.index).padStart(3, '0')}.mp4`);
          await mkdir(dirname(file), { recursive: true });
          const saved = await videos.download(video, file, { signal, timeout: options.timeout, maxRetries: options.maxRetries });
          Object.assign(segment, { status: 'downloaded', video: relative(workDir, file), bytes: saved.bytes });
          await writer.save();
          live.delete(segment.index);
          report('segments', live);
          return video;
        } catch (error) {
          permit.release(jobOutcome(error));
          if (!(error instanceof VideoFailedError || error instanceof VideoCancelledError)) throw error;
          const failure =
            error instanceof VideoFailedError
              ? { code: error.code ?? 'FAILED', message: error.message }
              : { code: 'CANCELLED', message: 'the job was cancelled' };
          Object.assign(segment, { jobId: null, status: 'failed', attempts: segment.attempts + 1, error: { jobId, ...failure } });
          live.delete(segment.index);
          await writer.save();
          if (segment.attempts >= maxSegmentAttempts) throw new SegmentFailedError(segment, workDir, error);
        }
      } finally {
        permit.release('unknown'); // does nothing once released with what the job taught
      }
    }
  };

  const results = await runPool(writer.manifest.segments, Math.max(1, concurrency), runSegment);
  report('join');
  const joined = await joinVideos(
    writer.manifest.segments.map((s) => join(workDir, s.video ?? '')),
    outputPath,
    { signal, metadata: { segmentIds: results.map((v) => v.id) } },
  );
  if (!keepWorkDir) await rm(workDir, { recursive: true, force: true });
  report('done');
  return { path: joined.path, bytes: joined.bytes, durationSeconds: joined.durationSeconds, segments: results };
}

/** Run `task` over `items`, `limit` at a time. After a failure no new item starts, but those running finish (they are paid for). */
async function runPool<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/** A path the segments can upload again and again: paths are used as they are, anything else is copied once. */
async function materialise(input: Uploadable, target: string): Promise<string> {
  if (typeof input === 'string') return resolve(input);
  if (input instanceof URL && input.protocol === 'file:') return fileURLToPath(input);
  const source = await openSource(input, basename(target));
  try {
    if (source.path) {
      await copyFile(source.path, target);
    } else {
      // A Blob may be file-backed and large: stream it rather than read it whole.
      await pipeline(Readable.from(source.toFile(basename(target), '').stream()), createWriteStream(target));
    }
  } finally {
    await source.dispose();
  }
  return target;
}

async function segmentsIntact(workDir: string, manifest: LongManifest): Promise<boolean> {
  if (manifest.segments.length === 0) return false;
  for (const segment of manifest.segments) {
    try {
      if ((await sha256File(join(workDir, segment.audio))) !== segment.audioSha256) return false;
    } catch {
      return false;
    }
  }
  return true;
}

async function sizeMatches(path: string, bytes: number | null): Promise<boolean> {
  if (bytes === null) return false;
  try {
    return (await stat(path)).size === bytes;
  } catch {
    return false;
  }
}
