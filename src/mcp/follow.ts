import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Video, WaitTimeoutError } from '../index.js';
import type { Call } from './context.js';
import { failureOf, failureResult, fileLink, success } from './results.js';

/** The job's fields every job result carries. */
function jobFields(video: Video, etaSeconds: number | undefined) {
  return { video_id: video.id, status: video.status, progress: video.progress ?? null, eta_seconds: etaSeconds ?? null };
}

const percent = (video: Video) => (typeof video.progress === 'number' ? ` ${Math.round(video.progress)}%` : '');

/**
 * Wait for `id` within the call's plan, then save it to `output` when it is COMPLETE and a path is given. A job
 * still running at the deadline is a normal result; a cancelled call stops at once and leaves the job running.
 */
export async function follow(call: Call, id: string, output: string | undefined): Promise<CallToolResult> {
  const client = call.client();
  let eta: number | undefined;
  const onProgress = (video: Video, progress: { etaSeconds?: number | undefined }) => {
    eta = progress.etaSeconds;
    call.recent.note(video.id, video.status);
    call.reporter?.update({ id: video.id, status: video.status, percent: video.progress ?? null, etaSeconds: eta });
  };
  const waitMs = call.plan.waitMs - (Date.now() - call.started);
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

function stillRunning(video: Video, eta: number | undefined): CallToolResult {
  const left = eta === undefined ? '' : `, about ${Math.ceil(eta)} s left`;
  return success(`Video ${video.id} is still ${video.status}${percent(video)}${left}: call wait_for_video with this video_id.`, {
    ...jobFields(video, eta),
    next: 'call wait_for_video with this video_id (do not call generate_video again: that pays for a new job)',
  });
}

/** Save a COMPLETE video within what is left of the call's budget. */
export async function save(call: Call, video: Video, output: string): Promise<CallToolResult> {
  const left = Math.max(1000, call.plan.callMs - (Date.now() - call.started));
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(left)]);
  const onDownloadProgress = ({ bytes, total }: { bytes: number; total: number | undefined }) =>
    call.reporter?.update({ id: video.id, status: video.status, percent: 100, etaSeconds: 0, saved: total ? bytes / total : 0 });
  try {
    const saved = await call.client().videos.download(video, output, { signal, onDownloadProgress });
    call.recent.note(video.id, 'COMPLETE (saved)');
    return success(
      `Saved video ${video.id} to ${saved.path} (${saved.bytes} bytes).`,
      {
        ...jobFields(video, 0),
        path: saved.path,
        bytes: saved.bytes,
        content_type: saved.contentType ?? 'video/mp4',
        next: 'done: the MP4 is on disk at path',
      },
      [fileLink(saved.path, saved.bytes)],
    );
  } catch (error) {
    if (!call.signal.aborted && signal.aborted) {
      return success(`Video ${video.id} is COMPLETE but saving did not finish in this call: call download_video.`, {
        ...jobFields(video, 0),
        next: `call download_video with this video_id and output_path ${output}`,
      });
    }
    return failureResult({ ...failureOf(error, video.id), next: `the video is COMPLETE: call download_video with video_id ${video.id}` });
  }
}
