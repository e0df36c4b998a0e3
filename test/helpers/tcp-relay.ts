import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export interface TcpRelay {
  /** Its loopback port: point a client here instead of at the target. */
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A byte-for-byte TCP relay to 127.0.0.1:`targetPort` (TLS passes through it untouched). With `cutAfter`, the first
 * connection is cut once that many bytes have gone from the target to the client: a connection dropped mid-transfer.
 */
export async function startTcpRelay(targetPort: number, options: { cutAfter?: number } = {}): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    connections += 1;
    const cutAfter = connections === 1 ? options.cutAfter : undefined;
    const upstream = connect(targetPort, '127.0.0.1');
    let relayed = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (cutAfter === undefined) return void client.write(chunk);
      if (relayed >= cutAfter) return;
      const room = cutAfter - relayed;
      relayed += chunk.byteLength;
      if (relayed < cutAfter) return void client.write(chunk);
      // The bytes up to the cut still arrive; then the connection ends, as a dropped one does.
      client.end(chunk.subarray(0, room));
      upstream.destroy();
    });
    client.pipe(upstream);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    // end(), not destroy(): what was written to the client still reaches it.
    upstream.on('close', () => client.end());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
