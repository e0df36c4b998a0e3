import type { Video } from '../../schemas.js';
import type { CreateOptions, Endpoints, JobContext } from '../endpoints.js';
import type { JobRun } from '../job-runner.js';
import type { VideoCreateParams } from '../media/prepare.js';
import type { WaitOptions } from '../wait.js';
import type { LedgerWriter } from './ledger.js';

/** What a batch asks of the long-video maker for an item too long for one job. */
export interface LongItemOptions extends Pick<WaitOptions, 'pollInterval' | 'maxPollInterval' | 'waitTimeout'> {
  output: string;
  workDir: string;
  maxJobAttempts: number;
  onUploadProgress: CreateOptions['onUploadProgress'];
  keepWorkDir: boolean;
  signal: AbortSignal | undefined;
}

/**
 * How an item too long for one job is made: `generateLong`, handed in by the resource, so that lib/batch and
 * lib/long never import each other.
 */
export type LongMaker = (
  api: Endpoints,
  context: JobContext,
  params: VideoCreateParams,
  options: LongItemOptions,
  onRunning: JobRun['onRunning'],
) => Promise<{ path: string; bytes: number; segments: Video[] }>;

/** What every item of one batch shares. */
export interface ItemContext {
  api: Endpoints;
  context: JobContext;
  ledger: LedgerWriter;
  outputDir: string;
  waitOptions: Omit<WaitOptions, 'signal' | 'onProgress'>;
  maxJobAttempts: number;
  onUploadProgress: CreateOptions['onUploadProgress'];
  /** Told as each of the item's jobs (its own or its segments') takes and gives back its place: the running count (set per item). */
  onRunning: JobRun['onRunning'];
  signal: AbortSignal | undefined;
  makeLong: LongMaker;
}
