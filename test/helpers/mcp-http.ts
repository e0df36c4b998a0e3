/**
 * The built `avatar-video mcp --http` as a real process (spawned async: the test serves the mock it talks to), and
 * its endpoint once it has printed it on stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface HttpServerProcess {
  /** The endpoint it printed, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Everything it wrote on stderr so far. */
  stderr: () => string;
  /** Everything it wrote on stdout so far (nothing is expected there). */
  stdout: () => string;
  /** Ctrl-C, then its exit code. */
  stop: () => Promise<number | null>;
}

/** Start `bin mcp --http ...extra` in `cwd` with `env` added to this process's; resolves once it is listening. */
export async function startHttpServerProcess(
  bin: string,
  options: { cwd: string; env: Record<string, string>; extra?: string[] },
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [bin, 'mcp', '--http', ...(options.extra ?? [])], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const url = await endpoint(child, output);
  return { url, stderr: () => output.stderr, stdout: () => output.stdout, stop: () => stop(child) };
}

/** The URL it prints, or why it never did: its exit, with what it said. */
async function endpoint(child: ChildProcess, output: { stderr: string }): Promise<string> {
  const pattern = /http:\/\/127\.0\.0\.1:\d+\/mcp/;
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = pattern.exec(output.stderr);
      if (match) {
        child.stderr?.off('data', onData);
        child.off('exit', onExit);
        resolve(match[0]);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`mcp --http exited (${code}) before listening:\n${output.stderr}`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const [code] = (await exited) as [number | null];
  return code;
}
