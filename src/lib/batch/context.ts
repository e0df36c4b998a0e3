import type { ConcurrencyLimiter } from '../../internal/concurrency-limiter.js';
import type { LongRunVideos } from '../long/generate-long.js';
import type { JobPlaces } from '../make-job.js';
import type { ValidateOptions } from '../media/validate.js';
import type { WaitOptions } from '../wait.js';
import type { LedgerWriter } from './ledger.js';

/** The client parts a batch needs, passed in so that this layer never reaches for the client. */
export interface BatchJobs {
  /** The video methods: the resource passes itself, as it does to generateLong. */
  videos: LongRunVideos;
  limiter: ConcurrencyLimiter;
  /** The client's media limits: an item whose audio is longer than `maxAudioSeconds` is made in segments. */
  limits: Required<ValidateOptions>;
}

/** What every item of one batch shares. */
export interface ItemContext {
  jobs: BatchJobs;
  ledger: LedgerWriter;
  outputDir: string;
  /** The client's limiter as the batch sees it: its bounds, and its jobs (items' and segments') counted as running. */
  places: JobPlaces;
  waitOptions: WaitOptions;
  maxAttempts: number;
  signal: AbortSignal | undefined;
}
