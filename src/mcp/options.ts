import type { AvatarVideo } from '../index.js';
import type { RecentJobs } from './recent-jobs.js';
import type { RootsSource } from './roots.js';

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
