import type { CreateOptions, Endpoints } from '../endpoints.js';
import type { JobRun } from '../job-runner.js';
import type { WaitOptions } from '../wait.js';
import type { LedgerWriter } from './ledger.js';

/** What every item of one batch shares. */
export interface ItemContext {
  api: Endpoints;
  ledger: LedgerWriter;
  outputDir: string;
  waitOptions: Omit<WaitOptions, 'signal' | 'onProgress'>;
  maxJobAttempts: number;
  onUploadProgress: CreateOptions['onUploadProgress'];
  /** Told as each of the batch's jobs (items' and segments') takes and gives back its place: the running count. */
  onRunning: JobRun['onRunning'];
  signal: AbortSignal | undefined;
}
