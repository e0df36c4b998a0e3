import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpServerOptions } from './options.js';
import { createMcpServer } from './server.js';

/**
 * Serve MCP on this process's stdin and stdout until the client closes stdin (or `signal` fires). Stdout carries
 * JSON-RPC alone: everything else goes to `options.log`, which writes stderr.
 */
export async function runStdio(options: McpServerOptions & { signal?: AbortSignal | undefined }): Promise<void> {
  keepConsoleOffStdout();
  const server = createMcpServer(options);
  const transport = new StdioServerTransport();
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

/** console.log, info and debug write stdout, which would corrupt the protocol: in this process they write stderr. */
function keepConsoleOffStdout(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
