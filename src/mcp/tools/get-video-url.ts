import * as schema from '../schemas.js';
import { tool } from '../tool.js';

/** get_video_url: the signed address of a COMPLETE video's MP4, the one result that carries a secret. */
export const getVideoUrl = tool({
  name: 'get_video_url',
  title: 'Get the signed address of a video',
  description:
    "The signed address of a COMPLETE video's MP4, for a player or another service. It is a SECRET (anyone holding it can fetch the " +
    'video) and it EXPIRES: do not store or share it; ask again when needed. Prefer download_video to save the file.',
  inputSchema: schema.getInput,
  outputSchema: schema.urlOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args: { video_id: string }, call) {
    const url = await call.client().videos.contentURL(args.video_id, { signal: call.signal });
    // The one result that carries a signed address, by design: not cleaned.
    return {
      content: [{ type: 'text', text: `Signed address of video ${args.video_id} (a secret that expires): ${url}` }],
      structuredContent: { video_id: args.video_id, url },
    };
  },
});
