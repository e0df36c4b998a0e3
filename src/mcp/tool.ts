import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import type { Call } from './context.js';
import type { McpServerOptions } from './options.js';

/** What every tool's description ends with where a job is concerned. */
export const NO_CANCEL = 'There is no cancel tool: the API cannot cancel a job.';

/** One tool of the server: its name and schemas as tools/list shows them, and what a call runs (tools.ts registers each). */
export interface Tool<A = never> {
  name: string;
  title: string;
  /** The server's options decide it for get_video, whose description lists this process's recent jobs. */
  description: string | ((options: Required<McpServerOptions>) => string);
  inputSchema: ZodRawShape;
  outputSchema: ZodRawShape;
  annotations: ToolAnnotations;
  /** The call, within its plan; what it throws becomes a failure result (tools.ts). */
  run(args: A, call: Call): Promise<CallToolResult>;
  /** The wait the call asks for (its `wait_seconds`), which its plan is made from. @default undefined (the default wait) */
  waitOf?: ((args: A) => number | undefined) | undefined;
  /** Once registered: keep the tool current while the server lives; returns what stops that. @default undefined */
  keepCurrent?: ((tool: RegisteredTool, options: Required<McpServerOptions>) => () => void) | undefined;
}

/** A tool, its argument type erased for the registration list (the SDK checks each call's arguments against the schema). */
export const tool = <A>(definition: Tool<A>): Tool<unknown> => definition as unknown as Tool<unknown>;
