import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type DroppedMessage, MessageLines } from './message-lines.js';
import type { McpServerOptions } from './options.js';
import { clean } from './results.js';
import { createMcpServer } from './server.js';

/** The largest message read from the client: the MCP SDK's own limit (10 MiB). Tool arguments are paths, never files. */
const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Serve MCP on this process's stdin and stdout until the client closes stdin (or `signal` fires). Stdout carries
 * JSON-RPC alone: everything else goes to `options.log`, which writes stderr. A message over MAX_MESSAGE_BYTES is
 * answered with a JSON-RPC error and the server goes on (the SDK's transport alone would close, silently).
 */
export async function runStdio(options: McpServerOptions & { signal?: AbortSignal | undefined }): Promise<void> {
  keepConsoleOffStdout();
  const server = createMcpServer(options);
  const lines = new MessageLines(MAX_MESSAGE_BYTES, (dropped) => {
    options.log(`avatar-video mcp: dropped a message of ${dropped.bytes} bytes (over ${MAX_MESSAGE_BYTES} bytes); answered with an error`);
    transport.send(tooLarge(dropped)).catch((error: unknown) => options.log(`avatar-video mcp: could not answer it: ${String(error)}`));
  });
  process.stdin.pipe(lines);
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  // What the transport or the protocol could not handle (a line that is not JSON-RPC...) is said on stderr.
  server.server.onerror = (error) => options.log(`avatar-video mcp: ${clean(error.message).slice(0, 500)}`);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  options.log(`avatar-video mcp: serving on stdio (calls end within ${options.maxWaitSeconds} s)`);
  await closed;
  await server.close();
}

/** The answer to a message dropped for its size: Invalid Request, for its id when it named one. */
function tooLarge(dropped: DroppedMessage): JSONRPCMessage {
  const message =
    `Message dropped: ${dropped.bytes} bytes, over the 10 MiB (${MAX_MESSAGE_BYTES} bytes) this server reads in one message. ` +
    'Pass file paths, not file contents.';
  return { jsonrpc: '2.0', ...(dropped.id === undefined ? {} : { id: dropped.id }), error: { code: ErrorCode.InvalidRequest, message } };
}

/** console.log, info and debug write stdout, which would corrupt the protocol: in this process they write stderr. */
function keepConsoleOffStdout(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
