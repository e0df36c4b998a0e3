import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AvatarVideo } from '../index.js';
import { VERSION } from '../index.js';
import { RecentJobs } from './recent-jobs.js';
import type { RootsSource } from './roots.js';
import { registerTools } from './tools.js';

/**
 * What one MCP server needs, whatever its transport (stdio.ts, http.ts): the same factory serves both.
 * Nothing here reads the environment: the command does (src/cli/commands/mcp.ts).
 */
export interface McpServerOptions {
  /**
   * The API client, made on first use: validate_inputs needs no key, so a server without AVATAR_VIDEO_API_KEY still
   * starts and a tool that needs the key fails with a result saying to set it.
   */
  client: () => AvatarVideo;
  /** Where file paths may be: the client's own roots (roots/list) when it has some, else these. */
  roots: RootsSource;
  /** The longest any one tool call runs, in seconds (budget.ts: default under 60, never above 110). */
  maxWaitSeconds: number;
  /** One line of the server's log; stderr, never stdout (stdout carries JSON-RPC alone on stdio). */
  log: (line: string) => void;
  /** The jobs this process made or followed, shared by every server of one process (http.ts makes one per session). */
  recent?: RecentJobs | undefined;
}

/** The server's instructions, sent to the client at initialize: the rules an agent must follow to pay once. */
export const INSTRUCTIONS = [
  'Makes talking-avatar videos from a driving audio file and a portrait image (or a video) with the avatar video API.',
  'Start with validate_inputs (free, local). generate_video creates ONE paid job and waits a bounded time;',
  'if it returns status PROCESSING, call wait_for_video with that video_id (as often as needed) -',
  'never call generate_video again for a job still PROCESSING: that creates and pays for a second job.',
  'There is no cancel tool: the API cannot cancel a job, and a job keeps running when a call is cancelled or ends;',
  'list_videos and get_video find it again. Files are local paths inside the allowed roots; the MP4 is saved to disk,',
  'never returned inline. Every call ends within its time budget, so long jobs take several wait_for_video calls.',
].join(' ');

/** The SDK's `McpServer` with the seven tools registered (tools.ts), for any transport. */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'avatar-video', title: 'Avatar video', version: VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, logging: {} } },
  );
  registerTools(server, { ...options, recent: options.recent ?? new RecentJobs() });
  return server;
}
