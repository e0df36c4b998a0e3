import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Video } from '../../index.js';
import type { Call } from '../context.js';
import { savedFileSize } from '../paths.js';
import type { RecentJobs } from '../recent-jobs.js';
import { success } from '../results.js';
import * as schema from '../schemas.js';
import { NO_CANCEL, tool } from '../tool.js';

/** get_video: one look at a job (no waiting); its description lists this process's recent jobs, kept current. */
export const getVideo = tool({
  name: 'get_video',
  title: 'Get a video job',
  description: (options) => getVideoDescription(options.recent),
  inputSchema: schema.getInput,
  outputSchema: schema.videoOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args: { video_id: string }, call) {
    const video = await call.client().videos.retrieve(args.video_id, { signal: call.signal });
    call.recent.note(video.id, video.status);
    const saved = video.status === 'COMPLETE' ? await savedHere(call, video.id) : undefined;
    const where = saved ? `, saved at ${saved}` : '';
    return success(`Video ${video.id}: ${video.status}${typeof video.progress === 'number' ? ` ${video.progress}%` : ''}${where}.`, {
      ...videoFields(video),
      ...(saved ? { path: saved } : {}),
      next: saved ? `already saved by this server at ${saved}: use that file (no download needed)` : nextFor(video),
    });
  },
  keepCurrent: (registered, options) => describeRecentJobs(registered, options.recent),
});

function videoFields(video: Video) {
  return {
    video_id: video.id,
    status: video.status,
    progress: video.progress ?? null,
    created_at: video.created_at,
    completed_at: video.completed_at,
    error: video.error ? { code: video.error.code ?? undefined, message: video.error.message ?? undefined } : null,
    model: video.model ?? null,
    generation_mode: video.generation_mode,
    aspect_ratio: video.aspect_ratio,
    share_link_url: video.share_link_url,
  };
}

/** Where this process saved the video's MP4, when the file is still there inside the call's roots. */
async function savedHere(call: Call, id: string): Promise<string | undefined> {
  const path = call.recent.savedPath(id);
  return path !== undefined && (await savedFileSize(path, await call.roots())) !== undefined ? path : undefined;
}

/** What the agent does next: save a COMPLETE job, wait for one still running (QUEUED, PROCESSING, any status not final). */
function nextFor(video: Video): string {
  if (video.status === 'COMPLETE') return 'call download_video to save the MP4';
  if (video.status === 'FAILED' || video.status === 'CANCELLED') {
    return 'the job ended without a video; a new generate_video call is a new paid job';
  }
  return 'call wait_for_video with this video_id';
}

/** get_video's description, with this process's recent jobs: an id whose call was cut off is found here. */
function getVideoDescription(recent: RecentJobs): string {
  const jobs = recent.list();
  const listed = jobs.length === 0 ? 'none yet' : jobs.map((job) => `${job.id} (${job.status}, ${job.seen})`).join('; ');
  return `Read a video job's status and progress (no waiting). Recent jobs of this server: ${listed}. ${NO_CANCEL}`;
}

/** Keep get_video's description current (clients hear tools/list_changed), until the returned function is called. */
function describeRecentJobs(registered: RegisteredTool, recent: RecentJobs): () => void {
  const stop = recent.onChange(() => registered.update({ description: getVideoDescription(recent) }));
  return () => void stop();
}
