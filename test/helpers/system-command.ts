import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `name` on PATH, or in the sbin folders Debian installs servers to (not on a normal user's PATH); undefined if
 * absent.
 */
export function findCommand(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const folder of folders) {
    const path = join(folder, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

/** Run a short command to its end (async: a test's own servers keep answering meanwhile); rejects with its output. */
export async function runCommand(command: string, args: string[], input?: string): Promise<string> {
  const child = spawn(command, args, { stdio: 'pipe' });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stdin.end(input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`);
  return stdout;
}

/** A started command's end: its exit code and output (async, so servers of the test's own process keep answering). */
export function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let [stdout, stderr] = ['', ''];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A loopback port free right now (a server started next takes it; a clash is retried by the caller). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once 127.0.0.1:`port` accepts connections; rejects when `exited()` says the server is gone, or after 10 s. */
export async function whenListening(port: number, exited: () => boolean, describe: () => Promise<string>): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
    if (exited()) throw new Error(`the server exited before listening on ${port}:\n${await describe()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
  }
  throw new Error(`nothing listened on ${port} within 10 s:\n${await describe()}`);
}

/** A server of the test's own, listening on `port`; `stop` ends it (SIGTERM) and waits for its exit. */
export interface Daemon {
  port: number;
  stop(): Promise<void>;
}

/**
 * Start `command` on a free port and wait until it listens. `argsFor` writes the server's config for the port and
 * returns its arguments; `log` is what to show when it fails. A port taken between `freePort()` and the server's bind
 * is tried again with another, three times at most.
 */
export async function startOnFreePort(
  command: string,
  argsFor: (port: number) => Promise<string[]>,
  log: () => Promise<string>,
): Promise<Daemon> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(command, await argsFor(port), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit');
    const stop = () => stopChild(child, exited);
    try {
      await whenListening(
        port,
        () => child.exitCode !== null || child.signalCode !== null,
        async () => `${stderr}${await log()}`,
      );
      return { port, stop };
    } catch (error) {
      await stop();
      if (attempt < 3 && /Address already in use/.test(String(error))) continue;
      throw error;
    }
  }
}

/** SIGTERM ends nginx at once (SIGQUIT would wait for open keep-alive connections), and squid (`shutdown_lifetime 0`). */
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
}
