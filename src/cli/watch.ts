import type { DownloadProgress, Video } from '../index.js';
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
  (video: Video): void =>
    session.progress.update('render', video.progress ?? 0, 100, video.status);

export const downloadProgress =
  (session: Session) =>
  ({ bytes, total }: DownloadProgress): void =>
    session.progress.update('download', bytes, total);
