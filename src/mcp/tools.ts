import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callOf, type Extra, type PlannedJob } from './context.js';
import type { McpServerOptions } from './options.js';
import { failureOf, failureResult } from './results.js';
import type { Tool } from './tool.js';
import { downloadVideo } from './tools/download-video.js';
import { generateVideo } from './tools/generate-video.js';
import { getVideo } from './tools/get-video.js';
import { getVideoUrl } from './tools/get-video-url.js';
import { listVideos } from './tools/list-videos.js';
import { validateInputs } from './tools/validate-inputs.js';
import { waitForVideo } from './tools/wait-for-video.js';

/** The seven tools, in the order tools/list shows them: one module each under tools/. */
const TOOLS = [validateInputs, generateVideo, waitForVideo, getVideo, listVideos, downloadVideo, getVideoUrl];

/** Register the seven tools on `server`, each call run within its plan and any error it throws made a failure result. */
export function registerTools(server: McpServer, options: Required<McpServerOptions>): void {
  const jobs = new Map<string, PlannedJob>();
  const stops: Array<() => void> = [];
  for (const tool of TOOLS) {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    const config = {
      title,
      description: typeof description === 'string' ? description : description(options),
      inputSchema,
      outputSchema,
      annotations,
    };
    const registered = server.registerTool(name, config, guarded(server, options, jobs, tool));
    if (tool.keepCurrent) stops.push(tool.keepCurrent(registered, options));
  }
  // The job list outlives this server (mcp --http shares it between sessions): a closed server stops listening to it.
  const closed = server.server.onclose;
  server.server.onclose = () => {
    for (const stop of stops) stop();
    closed?.();
  };
}

/** The job a call names (`video_id`), which a failure of the call names too. */
function videoIdOf(args: unknown): string | undefined {
  const id = (args as { video_id?: unknown } | undefined)?.video_id;
  return typeof id === 'string' ? id : undefined;
}

/** `tool`'s handler: its call context made, what it throws answered as a failure naming the call's job, its heartbeat stopped. */
function guarded(server: McpServer, options: Required<McpServerOptions>, jobs: Map<string, PlannedJob>, tool: Tool<unknown>) {
  return async (args: unknown, extra: Extra): Promise<CallToolResult> => {
    const call = callOf(server, options, jobs, extra, tool.waitOf?.(args));
    try {
      return await tool.run(args, call);
    } catch (error) {
      call.log(`tool call failed: ${error instanceof Error ? error.message : String(error)}`);
      return failureResult(failureOf(error, videoIdOf(args)));
    } finally {
      await call.reporter?.stop();
    }
  };
}
