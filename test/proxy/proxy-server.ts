/** The proxy handler served in this process by `toNodeHandler` on a loopback port, as an app mounts it. */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ProxyHandler, toNodeHandler } from '../../src/proxy/index.js';
import type { Closer } from '../helpers/fixture.js';

/** Where the proxy is mounted in the tests' app. */
export const PREFIX = '/api/avatar';

/** Serves `handler` until `closers` run (open connections cut); resolves to its address with {@link PREFIX}. */
export async function serve(closers: { push(...closers: Closer[]): void }, handler: ProxyHandler): Promise<string> {
  const server = createServer(toNodeHandler(handler));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${PREFIX}`;
}
