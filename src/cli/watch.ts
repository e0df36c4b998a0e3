import type { AvatarVideo, Video } from '../index.js';
import type { Session } from './session.js';

/** Callbacks that feed the SDK's progress reports (upload, wait, download, a long run) into the session's bars or lines. */

/** Follow a job's progress: tracked from the moment it exists (with the file it is for), so a failure can name it. */
export const watchJob =
  (session: Session, output?: string) =>
  (video: Video, { etaSeconds }: AvatarVideo.WaitProgress = {}): void => {
    session.track(video, output);
    session.progress.update('render', video.progress ?? 0, 100, withEta(video.status, etaSeconds));
  };

/**
 * `PROCESSING, ~1 min 5 s left` while the wait has an estimate; the bare status otherwise (`QUEUED`, or a status
 * the SDK does not know: not started, so no estimate) and once done.
 */
function withEta(status: string, etaSeconds: number | undefined): string {
  if (status !== 'PROCESSING' || etaSeconds === undefined) return status;
  const seconds = Math.ceil(etaSeconds);
  const left = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${status}, ~${left} left`;
}

export const downloadProgress =
  (session: Session) =>
  ({ bytes, total }: AvatarVideo.DownloadProgress): void => {
    // `download` took the user's word that the job is COMPLETE: the file flowing confirms it.
    if (session.job && !session.job.status) session.track({ ...session.job, status: 'COMPLETE' });
    session.progress.update('download', bytes, total);
  };

/**
 * A long video's run (split at quiet points, segments side by side, joined): a line each time a segment changes
 * state, and the bar (or a line per tenth) for the whole.
 */
export function longProgress(session: Session): (progress: AvatarVideo.LongProgress) => void {
  const seen = new Map<number, string>();
  const rerun = { videoIds: [] as string[] };
  return ({ phase, fraction, segments }) => {
    for (const { index, status, jobId } of segments) {
      const line = `segment ${index + 1}/${segments.length}: ${status}${jobId ? ` (${jobId})` : ''}`;
      if (seen.get(index) !== line) session.progress.log(line);
      seen.set(index, line);
      if (jobId && !rerun.videoIds.includes(jobId)) rerun.videoIds.push(jobId);
    }
    // Past the split, the work folder and its manifest (beside the output) hold every job made: from now on, after a
    // failure or Ctrl-C, the same command goes on without paying for them again.
    session.rerun = rerun;
    session.progress.update('overall', Math.round(fraction * 100), 100, phase);
  };
}

/** The upload's bytes on the session's bar, as the SDK hands the create's body to the connection. */
export const uploadProgress =
  (session: Session) =>
  ({ bytes, total }: AvatarVideo.UploadProgress): void => {
    // Every byte handed over: from now on the service may create a job even if its answer never arrives.
    if (bytes >= total) session.uploadSent = true;
    session.progress.update('upload', bytes, total);
  };
