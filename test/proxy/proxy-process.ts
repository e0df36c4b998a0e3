/** The proxy in a child process of its own (proxy-child.ts, run with `--expose-gc`): its memory measured alone, its heap collected on demand. */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Closer } from '../helpers/fixture.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Child = ChildProcessByStdio<Writable, Readable, null>;

export interface ProxyProcess {
  url: string;
  /** Send one command line (`reset`, `peak`, `gc`) and read the child's one-line JSON answer. */
  ask(line: string): Promise<Record<string, unknown>>;
}

/** Starts the proxy for the API at `baseURL`, every call allowed, uploads up to `maxUploadBytes`; `closers` ends it. */
export async function startProxy(
  closers: { push(...closers: Closer[]): void },
  baseURL: string,
  apiKey: string,
  maxUploadBytes = 200_000_000,
): Promise<ProxyProcess> {
  const child: Child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/proxy/proxy-child.ts', baseURL, apiKey, String(maxUploadBytes)],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  closers.push(async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.stdin.end();
    await exited;
  });
  const lines = child.stdout.setEncoding('utf8')[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
  const { url } = await next();
  return {
    url: String(url),
    ask: async (line) => {
      child.stdin.write(`${line}\n`);
      return next();
    },
  };
}
