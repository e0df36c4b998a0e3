import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/**
 * Start bench/serve.ts in its own process; resolves with the origins once it listens. `fileHostOrigin`: what
 * the API's redirects name instead of the file host's own origin (a shaped link to it).
 */
export async function spawnServers(dir?: string, fileHostOrigin?: string): Promise<{ api: string; cdn: string; stop(): Promise<void> }> {
  const args = [fileURLToPath(new URL('../serve.ts', import.meta.url)), dir ?? '', ...(fileHostOrigin ? [fileHostOrigin] : [])];
  const child = spawn(TSX, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const origins = JSON.parse(line.toString()) as { api: string; cdn: string };
  return { ...origins, stop: () => stop(child) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin?.end();
  await exited;
}

/** Run a command to completion (in `cwd`); resolves with its output, rejects (with its stderr) on a non-zero exit. */
export async function run(command: string, args: string[], cwd?: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} exited with ${code}: ${stderr.trim()}`);
  return { stdout, stderr };
}
