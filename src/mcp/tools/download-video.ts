import { save } from '../follow.js';
import { admitOutput } from '../paths.js';
import * as schema from '../schemas.js';
import { tool } from '../tool.js';

/** download_video: the MP4 of a COMPLETE video saved to disk within the call's budget, and linked. */
export const downloadVideo = tool({
  name: 'download_video',
  title: 'Save a video to disk',
  description:
    'Save the MP4 of a COMPLETE video to output_path (default: <video_id>.mp4 in the first allowed root); never over an existing file ' +
    'without overwrite: true. Gives the absolute path and bytes, plus a resource_link to the file; the video is never sent inline.',
  inputSchema: schema.downloadInput,
  outputSchema: schema.downloadOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args: { video_id: string; output_path?: string; overwrite?: boolean }, call) {
    const roots = await call.roots();
    const output = await admitOutput('output_path', args.output_path ?? `${args.video_id}.mp4`, roots, args.overwrite === true);
    const result = await save(call, args.video_id, output);
    if (result.isError || !(result.structuredContent as { path?: string }).path) return result;
    const { video_id, path, bytes, content_type } = result.structuredContent as Record<string, unknown>;
    return { ...result, structuredContent: { video_id, path, bytes, content_type } };
  },
});
