import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APIError, APIUserAbortError, type Video } from '../index.js';
import type { Call, PlannedJob } from './context.js';
import { JobDeadline } from './deadline.js';
import { completeButUnsaved, savedResult, stillRunning } from './follow.js';
import { unreachableFailure } from './hints.js';
import { failureOf, failureResult } from './results.js';

/** The next step after a create that may have made a job no answer named: look for it before paying again. */
const LIST_FIRST = 'call list_videos to find a job made in the last minutes before calling generate_video again (that pays for a new job)';

/** What a run of one video goes on from: the job to take up (none: create one), and the next step when none starts. */
export interface RunPlan extends PlannedJob {
  videoId?: string | undefined;
  /** The next step when the call's time is up before a job is in hand. */
  retry: string;
}

/** What a run saw of its jobs, for the answer when it stops early. */
interface Seen {
  video: Video | undefined;
  eta: number | undefined;
  /** The last job that ended FAILED or CANCELLED in this run (it is made again). */
  ended: string | undefined;
}

/**
 * Make `plan`'s video through the client's job runner (`videos.generate`: a place under the client's limit, the
 * create sent again on a refusal, a job FAILED for a rate limit made again, the save), within the call's time. A
 * job still running when the wait is over is a normal result naming it; a cancelled call leaves the job running.
 */
export async function runVideo(call: Call, plan: RunPlan): Promise<CallToolResult> {
  const deadline = new JobDeadline(call, plan.videoId === undefined ? 'queued' : 'running');
  const seen: Seen = { video: undefined, eta: undefined, ended: undefined };
  try {
    const made = await call.client().videos.generate(plan.params, {
      output: plan.output,
      videoId: plan.videoId,
      signal: deadline.signal,
      onUploadProgress: () => deadline.enter('sending'),
      onThrottled: () => deadline.enter('queued'),
      onCreated: (video) => {
        created(call, plan, video);
        seen.video = video;
        deadline.enter('running');
      },
      onProgress: (video, progress) => {
        noted(call, seen, video, progress.etaSeconds);
        if (video.status === 'COMPLETE') deadline.enter('saving');
        // Ended without a video: the runner may make it again, after a pause and in a place of its own.
        if (video.status === 'FAILED' || video.status === 'CANCELLED') {
          [seen.ended, seen.video] = [video.id, undefined];
          deadline.enter('queued');
        }
      },
      onDownloadProgress: ({ bytes, total }) =>
        call.reporter?.update({
          id: seen.video?.id ?? '',
          status: 'COMPLETE',
          percent: 100,
          etaSeconds: 0,
          saved: total ? bytes / total : 0,
        }),
    });
    call.recent.noteSaved(made.video.id, made.path);
    return savedResult(made.video.id, made);
  } catch (error) {
    return await stoppedResult(call, deadline, seen, plan, error);
  } finally {
    deadline.close();
  }
}

/** A job created: this server's now (get_video lists it, wait_for_video makes it again from the same inputs). */
function created(call: Call, plan: RunPlan, video: Video): void {
  call.recent.note(video.id, video.status);
  call.jobs.set(video.id, { params: plan.params, output: plan.output });
  call.log(`created video ${video.id}`);
}

function noted(call: Call, seen: Seen, video: Video, own: number | undefined): void {
  seen.video = video;
  seen.eta = call.eta.of(video.id, own);
  call.recent.note(video.id, video.status);
  call.reporter?.update({ id: video.id, status: video.status, percent: video.progress ?? null, etaSeconds: seen.eta });
}

/** The answer of a run that threw: stopped by the call's time (still running, unsaved, not started), or failed. */
async function stoppedResult(call: Call, deadline: JobDeadline, seen: Seen, plan: RunPlan, error: unknown): Promise<CallToolResult> {
  const id = seen.video?.id;
  if (deadline.stoppedIn && error instanceof APIUserAbortError && !call.signal.aborted) {
    if (deadline.stoppedIn === 'saving' && id) return completeButUnsaved(id, plan.output);
    if (deadline.stoppedIn === 'running' && seen.video) return stillRunning(seen.video, seen.eta);
    if (deadline.stoppedIn === 'sending') return unansweredCreate();
    return notStarted(call, seen, plan);
  }
  // A job taken up by its id (wait_for_video) is named even when the run never saw it (an id the service does not know).
  const failure = failureOf(error, id ?? plan.videoId);
  // A create on its way that got no answer (a dropped connection, a cancel): the service may have made the job.
  if (deadline.phase === 'sending' && !id && !plan.videoId && !(error instanceof APIError)) {
    return failureResult({ ...failure, next: LIST_FIRST });
  }
  // Found COMPLETE before the save: going on is another download.
  if (deadline.phase === 'saving' && id)
    return failureResult({ ...failure, next: `the video is COMPLETE: call download_video with video_id ${id}` });
  return failureResult(failure);
}

/**
 * No job was made within the call's time. The runner sends a create again after a connection that never opened, so
 * a service that cannot be reached looks like a wait for a place: one look at the list (no retry) tells them apart.
 */
async function notStarted(call: Call, seen: Seen, plan: RunPlan): Promise<CallToolResult> {
  const look = { timeout: 2000, maxRetries: 0, signal: call.signal };
  const unreachable = await call
    .client()
    .videos.list({ limit: 1 }, look)
    .then(
      () => undefined,
      (error: unknown) => unreachableFailure(error, undefined),
    );
  if (unreachable) return failureResult(unreachable);
  const before = seen.ended ? `Job ${seen.ended} ended without a video, and no` : 'No';
  return failureResult({
    code: 'not_started',
    message: `${before} job was made within this call's time: the client's jobs running at once are all taken, or the service asked to wait.`,
    next: plan.retry,
  });
}

/** The call's time ran out while a create was on its way: the service may have started the job the answer would name. */
function unansweredCreate(): CallToolResult {
  return failureResult({
    code: 'create_unanswered',
    message: "The call's time ran out before the service answered the create: a job may have been made.",
    next: LIST_FIRST,
  });
}
