import type { Video } from '../schemas.js';
import type { DownloadProgress } from './download.js';
import type { WaitOptions } from './wait.js';

/** Options of `videos.createAndWait`. */
export interface CreateAndWaitOptions extends WaitOptions {
  /** Check formats and durations locally before uploading. @default true */
  validate?: boolean;
}

/** Options of `videos.generate`. `signal` covers the whole run: upload, wait and download. */
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
