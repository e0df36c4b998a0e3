import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

/** How to get the server, for the message of a test that cannot run without it. */
export const REDIS_INSTALL_HINT = 'install redis-server (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis)';

/** The `redis-server` command on PATH, or undefined. */
export function findRedisServer(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(folder, 'redis-server');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

export interface RedisServer {
  /** The Unix socket it listens on: BullMQ's `connection: { path }`. */
  path: string;
  close(): Promise<void>;
}

/** A throwaway redis-server of this process's own: no TCP port, nothing saved, its socket in `dir`. */
export async function startRedisServer(dir: string): Promise<RedisServer> {
  const command = findRedisServer();
  if (command === undefined) throw new Error(`no redis-server on PATH: ${REDIS_INSTALL_HINT}`);
  const path = join(dir, 'r.sock');
  const server = spawn(command, ['--port', '0', '--unixsocket', path, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(server, 'exit');
  let output = '';
  for await (const line of createInterface({ input: server.stdout })) {
    output += `${line}\n`;
    if (/ready to accept connections/i.test(line)) break;
  }
  // The rest of its log is not read: let it drain rather than fill the pipe.
  server.stdout.resume();
  if (server.exitCode !== null) throw new Error(`redis-server exited at start:\n${output}`);
  return {
    path,
    close: async () => {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
    },
  };
}
