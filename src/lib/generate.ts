import type { RequestOptions } from '../internal/request-options.js';
import type { Video } from '../schemas.js';
import type { DownloadProgress } from './download.js';
import type { WaitOptions } from './wait.js';

/**
 * Options of `videos.createAndWait`. `timeout`, `maxRetries`, `maxRetryDelay` and `headers` apply to the
 * create request (its upload), as they do on `create`; `waitTimeout` bounds the wait that follows;
 * `signal` stops either.
 */
export interface CreateAndWaitOptions extends WaitOptions, Omit<RequestOptions, 'signal'> {
  /** Check formats and durations locally before uploading. @default true */
  validate?: boolean;
}

/**
 * Options of `videos.generate`. `signal` covers the whole run: upload, wait and download. `timeout` and
 * `maxRetries` apply to the download's requests too; the polls keep the client's.
 */
export interface GenerateOptions extends CreateAndWaitOptions {
  /** Where to save the MP4. A file already there is replaced only once the new one is complete. */
  output: string;
  /** Download progress, for a progress bar. @default undefined */
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

export interface GenerateResult {
  /** The finished job. */
  video: Video;
  /** Absolute path of the saved MP4. */
  path: string;
  bytes: number;
}

/** @internal Split `createAndWait`'s options into the create request's and the wait's. */
export function splitCreateAndWait(options: CreateAndWaitOptions): {
  create: RequestOptions & { validate?: boolean | undefined };
  wait: WaitOptions;
} {
  const { timeout, maxRetries, maxRetryDelay, headers, validate, signal, ...wait } = options;
  return { create: { timeout, maxRetries, maxRetryDelay, headers, validate, signal }, wait: { ...wait, signal } };
}
