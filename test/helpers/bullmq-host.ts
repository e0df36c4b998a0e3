import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** test/helpers/bullmq-worker.ts, run by Node itself with tsx as a loader: a SIGKILL then reaches the worker, not a tsx wrapper. */
export const WORKER_FROM_SOURCES = ['--import', 'tsx', fileURLToPath(new URL('./bullmq-worker.ts', import.meta.url))];

/** A worker process of test/helpers/bullmq-worker.ts. */
export interface WorkerHost {
  child: ChildProcessByStdio<null, Readable, Readable>;
  exited: Promise<unknown>;
  stderr: string;
  /** What it printed as it closed: its CPU time and peak resident memory. */
  usage?: { cpuMs: number; peakRssBytes: number };
}

/**
 * Start a worker host: `node <script...> <args...>`, where `script` runs test/helpers/bullmq-worker.ts (from the
 * sources, or compiled). Each `stored <key> <id>` line it prints goes to `onStored`. Resolves once it is connected.
 */
export async function startWorkerHost(
  script: string[],
  args: string[],
  onStored: (host: WorkerHost, key: string, id: string) => void,
): Promise<WorkerHost> {
  const child = spawn(process.execPath, [...script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const host: WorkerHost = { child, exited: once(child, 'exit'), stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => {
    host.stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [word, key, id] = line.split(' ');
      if (word === 'ready') resolve();
      if (word === 'stored') onStored(host, key as string, id as string);
      if (word === 'usage') host.usage = { cpuMs: Number(key), peakRssBytes: Number(id) };
    });
    void host.exited.then(() => reject(new Error(`a worker exited before it was ready:\n${host.stderr}`)));
  });
  return host;
}

/** Whether a host's process is still running. */
const running = ({ child }: WorkerHost) => child.exitCode === null && child.signalCode === null;

/**
 * Stop the hosts still running (SIGTERM: each closes its worker) and wait for every one to exit. A host whose close
 * has not ended after `graceMs` (a worker's close waits on redis, which may be gone) is killed, so a teardown ends.
 */
export async function stopWorkerHosts(hosts: WorkerHost[], graceMs = 10_000): Promise<void> {
  for (const host of hosts) if (running(host)) host.child.kill('SIGTERM');
  const grace = setTimeout(() => {
    for (const host of hosts) if (running(host)) host.child.kill('SIGKILL');
  }, graceMs);
  await Promise.all(hosts.map((host) => host.exited));
  clearTimeout(grace);
}

/**
 * The teardown of a test that runs worker hosts on its own redis-server: the hosts and the test's queues close
 * through the server (a worker's close waits on its connections), so they close first, then the server. Fill
 * `hosts` and `queues` as the test makes them.
 */
export function closeThroughRedis(
  hosts: WorkerHost[],
  queues: { close(): Promise<void> }[],
  redis: { close(): Promise<void> },
): () => Promise<void> {
  return async () => {
    await Promise.all([stopWorkerHosts(hosts), ...queues.map((queue) => queue.close())]);
    await redis.close();
  };
}
