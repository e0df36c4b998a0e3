import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import type { AvatarVideo, Video, VideoCreateParams } from '../index.js';
import { MEDIA_FLAGS } from './flags.js';
import type { Session } from './session.js';

/** Callbacks that feed the SDK's progress reports (and the bytes of an upload) into the session's bars or lines. */

/** Follow a job's progress: tracked from the moment it exists (with the file it is for), so a failure can name it. */
export const watchJob =
  (session: Session, output?: string) =>
  (video: Video, { etaSeconds }: AvatarVideo.WaitProgress = {}): void => {
    session.track(video, output);
    session.progress.update('render', video.progress ?? 0, 100, withEta(video.status, etaSeconds));
  };

/** `PROCESSING, ~1 min 5 s left` while the wait has an estimate; the bare status otherwise and once done. */
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

/** Swap the paths in `params` for files whose upload the session's bar counts, all files together. */
export async function countUploads(params: VideoCreateParams, session: Session): Promise<VideoCreateParams> {
  const counted: Record<string, unknown> = { ...params };
  const read = new Map<string, number>();
  let total = 0;
  for (const field of Object.values(MEDIA_FLAGS)) {
    const path = counted[field];
    if (typeof path !== 'string') continue;
    const file = new CountedFile(await openAsBlob(path), basename(path), (bytes) => {
      read.set(field, bytes);
      const sent = [...read.values()].reduce((sum, value) => sum + value, 0);
      // Every byte handed over: from now on the service may create a job even if its answer never arrives.
      if (sent >= total) session.uploadSent = true;
      session.progress.update('upload', sent, total);
    });
    total += file.size;
    counted[field] = file;
  }
  return counted as unknown as VideoCreateParams;
}

/**
 * A file on disk as a Blob that counts the bytes read from its stream. The SDK has no upload-progress hook, but it
 * sends a Blob by reading `stream()` as the body goes out (a new one for each retry), so bytes read are bytes handed
 * to the socket. A subclass, as the SDK recognises Blobs with `instanceof`, overriding what the SDK reads (size,
 * slice, stream); reads through `slice()` (local validation reading headers) are not counted.
 */
class CountedFile extends Blob {
  constructor(
    readonly file: Blob,
    readonly name: string,
    readonly onRead: (bytesRead: number) => void,
  ) {
    super([]);
  }

  override get size(): number {
    return this.file.size;
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return this.file.slice(start, end, contentType);
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    let read = 0;
    this.onRead(0);
    const count = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
      transform: (chunk, controller) => {
        read += chunk.byteLength;
        this.onRead(read);
        controller.enqueue(chunk);
      },
    });
    return this.file.stream().pipeThrough(count);
  }
}
