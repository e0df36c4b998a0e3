import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Video, WaitTimeoutError } from '../index.js';
import type { Call } from './context.js';
import { givenPath, savedFileSize } from './paths.js';
import { failureOf, failureResult, fileLink, success } from './results.js';

/** The job's fields every job result carries. */
function jobFields(video: Video, etaSeconds: number | undefined) {
  return { video_id: video.id, status: video.status, progress: video.progress ?? null, eta_seconds: etaSeconds ?? null };
}

const percent = (video: Video) => (typeof video.progress === 'number' ? ` ${Math.round(video.progress)}%` : '');

/**
 * Wait for `id` by its id alone (a job this server did not make, so without the inputs to make it again, or a call
 * with under a second to wait), then save it to `output` when it is COMPLETE and a path is given. A job still running
 * at the deadline is a normal result; a cancelled call stops at once and leaves the job running. job.ts makes and
 * waits for the jobs this server made.
 */
export async function follow(call: Call, id: string, output: string | undefined): Promise<CallToolResult> {
  const client = call.client();
  let eta: number | undefined;
  const onProgress = (video: Video, progress: { etaSeconds?: number | undefined }) => {
    eta = call.eta.of(video.id, progress.etaSeconds);
    call.recent.note(video.id, video.status);
    call.reporter?.update({ id: video.id, status: video.status, percent: video.progress ?? null, etaSeconds: eta });
  };
  const waitMs = call.leftMs('waitMs');
  let video: Video;
  try {
    if (waitMs < 1000) {
      video = await client.videos.retrieve(id, { signal: call.signal });
      onProgress(video, {});
    } else {
      video = await client.videos.waitForCompletion(id, { waitTimeout: waitMs, signal: call.signal, onProgress });
    }
  } catch (error) {
    if (error instanceof WaitTimeoutError && error.video) return stillRunning(error.video, eta);
    return failureResult(failureOf(error, id));
  }
  if (video.status !== 'COMPLETE') return stillRunning(video, eta);
  if (output === undefined) {
    return success(`Video ${id} is COMPLETE; call download_video to save it.`, {
      ...jobFields(video, 0),
      next: 'call download_video with this video_id to save the MP4',
    });
  }
  return save(call, video, output);
}

/** A job still running when the call's wait is over: a normal result naming it and wait_for_video. */
export function stillRunning(video: Video, eta: number | undefined): CallToolResult {
  const left = eta === undefined ? '' : `, about ${Math.ceil(eta)} s left`;
  return success(`Video ${video.id} is still ${video.status}${percent(video)}${left}: call wait_for_video with this video_id.`, {
    ...jobFields(video, eta),
    next: 'call wait_for_video with this video_id (do not call generate_video again: that pays for a new job)',
  });
}

/**
 * Save a video within what is left of the call's budget: one found COMPLETE, or an id (download checks its status
 * first). Bytes only flow from a COMPLETE video, so that is the status reported.
 */
export async function save(call: Call, video: string | Video, output: string): Promise<CallToolResult> {
  const id = typeof video === 'string' ? video : video.id;
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(Math.max(1000, call.leftMs('callMs')))]);
  const onDownloadProgress = ({ bytes, total }: { bytes: number; total: number | undefined }) =>
    call.reporter?.update({ id, status: 'COMPLETE', percent: 100, etaSeconds: 0, saved: total ? bytes / total : 0 });
  try {
    const saved = await call.client().videos.download(video, output, { signal, onDownloadProgress });
    call.recent.noteSaved(id, saved.path);
    return savedResult(id, saved);
  } catch (error) {
    if (!call.signal.aborted && signal.aborted) return completeButUnsaved(id, output);
    const failure = failureOf(error, id);
    // Found COMPLETE before the save: going on is another download. An id's own failure (not ready...) says its next.
    return failureResult(
      typeof video === 'string' ? failure : { ...failure, next: `the video is COMPLETE: call download_video with video_id ${id}` },
    );
  }
}

const complete = (id: string) => ({ video_id: id, status: 'COMPLETE', progress: 100, eta_seconds: 0 });

/** The result of a video saved to disk: its path, size and a link to the file. */
export function savedResult(id: string, saved: { path: string; bytes: number; contentType?: string | undefined }): CallToolResult {
  return success(
    `Saved video ${id} to ${saved.path} (${saved.bytes} bytes).`,
    {
      ...complete(id),
      path: saved.path,
      bytes: saved.bytes,
      content_type: saved.contentType ?? 'video/mp4',
      next: 'done: the MP4 is on disk at path',
    },
    [fileLink(saved.path, saved.bytes)],
  );
}

/**
 * The result for a video this process already saved, when its MP4 is still there (inside the call's roots) and the
 * call names that path or none: the file is pointed to, not downloaded a second time.
 */
export async function alreadySaved(call: Call, id: string, raw?: string): Promise<CallToolResult | undefined> {
  const path = call.recent.savedPath(id);
  if (path === undefined) return undefined;
  const roots = await call.roots();
  if (raw !== undefined && givenPath(raw, roots) !== path) return undefined;
  const bytes = await savedFileSize(path, roots);
  if (bytes === undefined) return undefined;
  return success(
    `Video ${id} is already saved at ${path} (${bytes} bytes): nothing was downloaded again.`,
    {
      ...complete(id),
      path,
      bytes,
      content_type: 'video/mp4',
      next: 'done: this server saved the MP4 at path earlier; use that file',
    },
    [fileLink(path, bytes)],
  );
}

/** A COMPLETE video whose save did not finish within the call: download_video goes on. */
export function completeButUnsaved(id: string, output: string): CallToolResult {
  return success(`Video ${id} is COMPLETE but saving did not finish in this call: call download_video.`, {
    ...complete(id),
    next: `call download_video with this video_id and output_path ${output}`,
  });
}
