import { success } from '../results.js';
import * as schema from '../schemas.js';
import { tool } from '../tool.js';

/** list_videos: the account's jobs, newest first, to find one whose call was cut off or cancelled. */
export const listVideos = tool({
  name: 'list_videos',
  title: 'List video jobs',
  description: "List the account's video jobs, newest first: find a job whose call was cut off or cancelled (jobs keep running).",
  inputSchema: schema.listInput,
  outputSchema: schema.listOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args: { limit?: number; after?: string }, call) {
    const page = await call.client().videos.list({ limit: args.limit, after: args.after }, { signal: call.signal });
    const videos = page.data.map((video) => ({
      video_id: video.id,
      status: video.status,
      progress: video.progress ?? null,
      created_at: video.created_at,
    }));
    return success(`${videos.length} videos${videos.length ? `: ${videos.map((v) => `${v.video_id} ${v.status}`).join(', ')}` : ''}.`, {
      videos,
      has_more: page.hasNextPage(),
      last_id: page.last_id,
    });
  },
});
