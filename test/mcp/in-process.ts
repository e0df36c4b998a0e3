// The MCP server connected to an MCP client in this process, for the tests of test/mcp/ that drive its tools.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AvatarVideo } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { useCleanup } from '../helpers/fixture.js';

/**
 * An MCP client connected in process to a server whose API client comes from `client`, its roots falling back to
 * `work`; both are closed by `closers` after the test.
 */
export async function connectInProcess(
  client: () => AvatarVideo,
  { work, closers, maxWaitSeconds = 55 }: { work: string; closers: ReturnType<typeof useCleanup>; maxWaitSeconds?: number },
): Promise<Client> {
  const server = createMcpServer({ client, roots: { fallback: [work] }, maxWaitSeconds, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'avatar-video-test', version: '0.0.0' });
  await mcp.connect(clientSide);
  // The client checks each result against its tool's output schema once it has listed the tools.
  await mcp.listTools();
  closers.push(
    () => mcp.close(),
    () => server.close(),
  );
  return mcp;
}
