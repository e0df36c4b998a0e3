import type { DownloadProgress, Video, WaitProgress } from '../index.js';
import { UploadMeter } from './counted-file.js';
import type { Session } from './session.js';

/** Callbacks that feed the SDK's progress reports into the session's bars or lines. */

export const uploadMeter = (session: Session): UploadMeter =>
  new UploadMeter((sent, total) => {
    // Every byte handed over: from now on the service may create a job even if its answer never arrives.
    if (sent >= total) session.uploadSent = true;
    session.progress.update('upload', sent, total);
  });

export const renderProgress =
  (session: Session) =>
  (video: Video, { etaSeconds }: WaitProgress = {}): void =>
    session.progress.update('render', video.progress ?? 0, 100, withEta(video.status, etaSeconds));

/** `PROCESSING, ~1 min 5 s left` while the wait has an estimate; the bare status otherwise and once done. */
function withEta(status: string, etaSeconds: number | undefined): string {
  if (status !== 'PROCESSING' || etaSeconds === undefined) return status;
  const seconds = Math.ceil(etaSeconds);
  const left = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${status}, ~${left} left`;
}

export const downloadProgress =
  (session: Session) =>
  ({ bytes, total }: DownloadProgress): void =>
    session.progress.update('download', bytes, total);
