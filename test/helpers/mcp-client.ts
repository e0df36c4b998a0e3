import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** An MCP client connected to `avatar-video mcp` run from `bin`, with every message it received, raw. */
export async function connectMcp(bin: string, options: { cwd: string; env: Record<string, string> }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  /** Every message from the server as its text, and any stdout line that did not parse as JSON-RPC. */
  const received: string[] = [];
  const errors: Error[] = [];
  const client = new Client({ name: 'avatar-video-test', version: '0.0.0' });
  client.onerror = (error) => errors.push(error);
  // The transport's onmessage is set by connect(); the start hook below wraps it once set.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      received.push(JSON.stringify(message));
      deliver?.(message);
    };
    await start();
  };
  await client.connect(transport);
  return { client, received, errors, stderr: () => stderr, close: () => client.close() };
}
