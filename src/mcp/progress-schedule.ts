/**
 * When a call with a progressToken notifies, and what progress it reports. Clients reset their timeout on each
 * notification only if progress moves, so it strictly increases; a job that stands still still gets a heartbeat.
 */

/** The longest gap between two notifications of one call, in ms: well under the 10 s clients are promised. */
export const HEARTBEAT_MS = 5_000;
/** Every notification's `total`. */
export const PROGRESS_TOTAL = 100;
/** Of the total, the share the job's own progress maps to; the rest is saving the MP4. */
const JOB_SHARE = 90;

/** A job's state as a notification reports it. */
export interface JobSnapshot {
  id: string;
  status: string;
  /** The job's percent, 0..100, or null while the service gives none. */
  percent: number | null;
  etaSeconds?: number | undefined;
  /** Share of the MP4 saved, 0..1, once saving has begun. */
  saved?: number | undefined;
}

/** Where the call stands on the 0..100 scale: the job's percent in the first 90, saving in the last 10. */
export function targetOf(snapshot: JobSnapshot): number {
  if (snapshot.saved !== undefined) return JOB_SHARE + (PROGRESS_TOTAL - JOB_SHARE) * Math.min(Math.max(snapshot.saved, 0), 1);
  return (JOB_SHARE * Math.min(Math.max(snapshot.percent ?? 0, 0), 100)) / 100;
}

/**
 * The progress of the next notification after `last` (undefined: none yet): the target when it is ahead, else a
 * step too small to mislead but still forward, always below the total until the call is done.
 */
export function nextProgress(last: number | undefined, target: number): number {
  if (last === undefined) return target;
  if (target > last) return target;
  return last + Math.min(0.01, (PROGRESS_TOTAL - last) / 2);
}

/** Whether a notification is due: the job changed since the last one, or the heartbeat's time has come. */
export function isDue(previous: JobSnapshot | undefined, current: JobSnapshot, msSinceLast: number): boolean {
  if (!previous) return true;
  const changed = previous.status !== current.status || previous.percent !== current.percent || previous.saved !== current.saved;
  return changed || msSinceLast >= HEARTBEAT_MS;
}

/** The notification's message: the id, status, percent and time left, e.g. `video vid_1: PROCESSING 40%, about 12 s left`. */
export function progressMessage(snapshot: JobSnapshot): string {
  const percent = snapshot.percent === null ? 'progress unknown' : `${Math.round(snapshot.percent)}%`;
  const eta = snapshot.etaSeconds === undefined ? 'time left unknown' : `about ${Math.ceil(snapshot.etaSeconds)} s left`;
  const saving = snapshot.saved === undefined ? '' : `, saving the MP4 ${Math.round(snapshot.saved * 100)}%`;
  return `video ${snapshot.id}: ${snapshot.status} ${percent}, ${eta}${saving}`;
}
