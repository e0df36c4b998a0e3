import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../index.js';
import type { McpServerOptions } from './options.js';
import { RecentJobs } from './recent-jobs.js';
import { registerTools } from './tools.js';

export type { McpServerOptions } from './options.js';

/** The server's instructions, sent to the client at initialize: the rules an agent must follow to pay once. */
const INSTRUCTIONS = [
  'Makes talking-avatar videos from a driving audio file and a portrait image (or a video) with the avatar video API.',
  'Start with validate_inputs (free, local). generate_video creates ONE paid job and waits a bounded time;',
  'if it returns a status still running (QUEUED, PROCESSING or any other than COMPLETE, FAILED and CANCELLED), call',
  'wait_for_video with that video_id (as often as needed) -',
  'never call generate_video again for a job still running: that creates and pays for a second job.',
  'There is no cancel tool: the API cannot cancel a job, and a job keeps running when a call is cancelled or ends;',
  'list_videos and get_video find it again. Files are local paths inside the allowed roots; the MP4 is saved to disk,',
  'never returned inline. Every call ends within its time budget, so long jobs take several wait_for_video calls.',
].join(' ');

/** The SDK's `McpServer` with the seven tools registered (tools.ts, one module each under tools/), for any transport. */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'avatar-video', title: 'Avatar video', version: VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, logging: {} } },
  );
  registerTools(server, { ...options, recent: options.recent ?? new RecentJobs() });
  return server;
}
