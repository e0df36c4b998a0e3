import type { UploadProgress } from '../endpoints.js';
import type { VideoCreateParams } from '../media/prepare.js';
import type { WaitOptions } from '../wait.js';

/**
 * One video of a batch: the create parameters plus a key that names its output file, `<outputDir>/<key>.mp4`.
 * Its audio may be of any length: audio longer than one job allows (the client's `limits.maxAudioSeconds`) is
 * made as `generateLong` makes it, split at quiet points into segments whose videos are joined.
 */
export type BatchItem = { key: string } & VideoCreateParams;

/** Options of `videos.generateBatch`. The wait options (poll intervals, `waitTimeout`) apply to each job; `signal` stops the whole batch. */
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
   * Items in hand at once: how many this batch works on side by side. Never a second limit on jobs: each item's job
   * (and each segment's, for a long item) takes its place under the client's one limit (`jobConcurrency`), shared
   * with every other job of the client. `'auto'` holds as many as that limit can ever let run.
   * @default 'auto'
   */
  concurrency?: number | 'auto' | undefined;
  /** @deprecated Use `concurrency` (the same width); it logs a warning once. @default undefined */
  maxConcurrency?: number | undefined;
  /**
   * Jobs made per item (per segment, for a long item) at most: a job that FAILS for a rate limit or a fault of the
   * service (a code such as `internal_error`) is created again after a short backoff, as on `generate` and
   * `generateLong`. Other failures are reported at once: the same inputs would most likely fail again.
   * @default 3
   */
  maxJobAttempts?: number | undefined;
  /** @deprecated Use `maxJobAttempts` (the same number); it logs a warning once. @default 3 */
  maxAttempts?: number | undefined;
  /**
   * Each create's upload (an item's, or a long item's segment's), as on `create`: uploads side by side each report
   * their own body's `bytes` and `total`.
   * @default undefined
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
  /** Called once per item when it is finished (complete, failed or skipped). @default undefined */
  onItem?: ((result: BatchItemResult) => void) | undefined;
  /** The batch's counts (done, failed, running, total, ETA), whenever an item starts or finishes. @default undefined */
  onRunProgress?: ((progress: BatchProgress) => void) | undefined;
  /**
   * @deprecated Use `onRunProgress` (the same callback, the same counts); it logs a warning once. On this method
   * `onProgress` keeps this run-level meaning until the alias is removed in the next minor version.
   * @default undefined
   */
  onProgress?: ((progress: BatchProgress) => void) | undefined;
}

export interface BatchProgress {
  /** Items finished well: saved in this run or skipped as saved before. */
  done: number;
  failed: number;
  /** Items in flight: their first job has started and they have not finished (uploading, waiting, between jobs, downloading). */
  running: number;
  total: number;
  /** Seconds until every item is finished, from this run's pace so far; undefined until an item finishes. */
  etaSeconds: number | undefined;
}

export interface BatchItemError {
  /**
   * The job's `error.code`, the API error's code, a connection error's `code` (`connection`, `timeout`,
   * `tls_certificate`, `proxy_auth`...), or a code of the SDK (`wait_timeout`, `aborted`...).
   */
  code: string;
  message: string;
}

export interface BatchItemResult {
  key: string;
  status: 'complete' | 'failed' | 'skipped';
  /** The last job made for the item, when one was made; absent for an item made in segments (see `segmentVideoIds`). */
  videoId?: string | undefined;
  /**
   * For an item whose audio was longer than one job allows: the job of each segment, in order, whose videos
   * were joined into its file. For a failed one, `videoId` names the last job of the segment that failed, if any.
   */
  segmentVideoIds?: string[] | undefined;
  /** Absolute path of the saved MP4 (complete and skipped items). */
  path?: string | undefined;
  error?: BatchItemError | undefined;
}

export interface BatchSummary {
  completed: number;
  failed: number;
  /** Items already saved by an earlier run over the same folder. */
  skipped: number;
  /** One per item, in input order. */
  results: BatchItemResult[];
}
