import type { VideoCreateParams } from '../media/prepare.js';
import type { WaitOptions } from '../wait.js';

/**
 * One video of a batch: the create parameters plus a key that names its output file, `<outputDir>/<key>.mp4`.
 * Its audio may be of any length: audio longer than one job allows (the client's `limits.maxAudioSeconds`) is
 * made as `generateLong` makes it, split at quiet points into segments whose videos are joined.
 */
export type BatchItem = { key: string } & VideoCreateParams;

/** Options of `videos.generateBatch`. The wait options (poll intervals, the wait's deadline) apply to each job. */
export interface GenerateBatchOptions extends Omit<WaitOptions, 'onProgress'> {
  /**
   * Folder for the videos (`<key>.mp4`) and the batch ledger; made if missing. It is checked before any job is
   * created: a path that is not a folder, or a folder that is not writable, is an `OutputPathError`. Run the same
   * batch again over the same folder to resume: saved items are skipped, jobs already created are waited on,
   * only the rest is created. A long item keeps its segments and their manifest in `.work/<key>/` until it is
   * saved. Run one batch at a time per folder.
   */
  outputDir: string;
  /**
   * Jobs running at once. `'auto'` starts low and adapts to the service (it grows while jobs succeed and
   * shrinks on rate limits), sharing one limit with every other job of the same client. A number runs exactly
   * that many, still pausing for a `Retry-After`. A long item's segments are made one after another, each
   * taking its place like any other job, so this bound holds for them too.
   * @default 'auto'
   */
  concurrency?: number | 'auto';
  /** Ceiling of `'auto'` concurrency for this batch. @default 16 */
  maxConcurrency?: number;
  /**
   * Jobs per item: a job that FAILS with a rate-limit code is created again, up to this many in all. For a long
   * item, jobs per segment, and as `generateLong` does, a segment whose job FAILS for any reason is created again.
   * @default 3
   */
  maxAttempts?: number;
  /** Called once per item when it is finished (complete, failed or skipped). @default undefined */
  onItem?: (result: BatchItemResult) => void;
  /** Called whenever an item starts or finishes. @default undefined */
  onProgress?: (progress: BatchProgress) => void;
}

export interface BatchProgress {
  /** Items finished well: saved in this run or skipped as saved before. */
  done: number;
  failed: number;
  /** Items with a job on the service now. */
  running: number;
  total: number;
  /** Seconds until every item is finished, from this run's pace so far; undefined until an item finishes. */
  etaSeconds: number | undefined;
}

export interface BatchItemError {
  /** The job's `error.code`, the API error's code, or a code of the SDK (`wait_timeout`, `aborted`...). */
  code: string;
  message: string;
}

export interface BatchItemResult {
  key: string;
  status: 'complete' | 'failed' | 'skipped';
  /** The last job made for the item, when one was made; absent for an item made in segments (see `segmentVideoIds`). */
  videoId?: string;
  /**
   * For an item whose audio was longer than one job allows: the job of each segment, in order, whose videos
   * were joined into its file. For a failed one, `videoId` names the last job of the segment that failed, if any.
   */
  segmentVideoIds?: string[];
  /** Absolute path of the saved MP4 (complete and skipped items). */
  path?: string;
  error?: BatchItemError;
}

export interface BatchSummary {
  completed: number;
  failed: number;
  /** Items already saved by an earlier run over the same folder. */
  skipped: number;
  /** One per item, in input order. */
  results: BatchItemResult[];
}
