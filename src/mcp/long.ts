import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { VideoCreateParams } from '../index.js';
import type { Call } from './context.js';
import { failureOf, failureResult, fileLink, needsTheUser, success } from './results.js';

/**
 * Audio over one job's limit, through generateLong: its manifest (in `.<output>.parts` beside the MP4) records every
 * job, so when the wait's time is up the call ends, the jobs keep running, and the same call again resumes them.
 * No result names a `video_id`: each job is one segment (waiting for or downloading one gives that segment alone),
 * so the joined MP4 is known by its path and the jobs are listed in `segment_ids`.
 */
export async function generateInSegments(call: Call, params: VideoCreateParams, output: string): Promise<CallToolResult> {
  const deadline = AbortSignal.timeout(Math.max(1000, call.leftMs('waitMs')));
  const signal = AbortSignal.any([call.signal, deadline]);
  let ids: string[] = [];
  let fraction = 0;
  try {
    const made = await call.client().videos.generateLong(params, {
      output,
      signal,
      onRunProgress: (progress) => {
        fraction = progress.fraction;
        ids = progress.segments.flatMap((segment) => (segment.jobId ? [segment.jobId] : []));
        for (const id of ids) call.recent.note(id, 'segment');
        call.reporter?.update({ id: ids.at(-1) ?? 'segments', status: progress.phase, percent: progress.fraction * 100 });
      },
    });
    return success(
      `Saved ${made.path} (${made.bytes} bytes, ${made.durationSeconds.toFixed(1)} s), joined from ${made.segments.length} segments.`,
      {
        status: 'COMPLETE',
        progress: 100,
        eta_seconds: 0,
        path: made.path,
        bytes: made.bytes,
        content_type: 'video/mp4',
        segment_ids: made.segments.map((video) => video.id),
        next: 'done: the joined MP4 is on disk at path (each of segment_ids is one part only: do not download them)',
      },
      [fileLink(made.path, made.bytes)],
    );
  } catch (error) {
    const again = 'call generate_video again with the same arguments: it resumes the recorded jobs and pays for none twice';
    if (deadline.aborted && !call.signal.aborted) {
      return success(`Segments still being made (${Math.round(fraction * 100)}%): ${again}.`, {
        status: 'PROCESSING',
        progress: Math.round(fraction * 100),
        eta_seconds: null,
        segment_ids: ids,
        next: again,
      });
    }
    // The error names a segment's job when one failed; the server or the service at fault is the user's to fix first.
    const failure = failureOf(error);
    return failureResult(needsTheUser(failure) ? failure : { ...failure, next: again });
  }
}
