import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { alreadySaved, save } from '../follow.js';
import { admitOutput } from '../paths.js';
import * as schema from '../schemas.js';
import { tool } from '../tool.js';

/** download_video: the MP4 of a COMPLETE video saved to disk within the call's budget, and linked. */
export const downloadVideo = tool({
  name: 'download_video',
  title: 'Save a video to disk',
  description:
    'Save the MP4 of a COMPLETE video to output_path (default: where this server already saved it, else <video_id>.mp4 in the first ' +
    'allowed root); never over an existing file without overwrite: true. A video this server already saved is not downloaded again. ' +
    'Gives the absolute path and bytes, plus a resource_link to the file; the video is never sent inline.',
  inputSchema: schema.downloadInput,
  outputSchema: schema.downloadOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args: { video_id: string; output_path?: string; overwrite?: boolean }, call) {
    const saved = args.overwrite === true ? undefined : await alreadySaved(call, args.video_id, args.output_path);
    if (saved) return downloadResult(saved);
    const roots = await call.roots();
    // Saved before and since removed: saved again where it was, not as a second name elsewhere.
    const planned = args.output_path ?? call.recent.savedPath(args.video_id) ?? `${args.video_id}.mp4`;
    const output = await admitOutput('output_path', planned, roots, args.overwrite === true);
    return downloadResult(await save(call, args.video_id, output));
  },
});

/** A saved video's result in download_video's own output schema (no status, no next). */
function downloadResult(result: CallToolResult): CallToolResult {
  if (result.isError || !(result.structuredContent as { path?: string }).path) return result;
  const { video_id, path, bytes, content_type } = result.structuredContent as Record<string, unknown>;
  return { ...result, structuredContent: { video_id, path, bytes, content_type } };
}
