import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./batch-child.ts', import.meta.url));

/**
 * Start test/helpers/batch-child.ts with `args`. Node runs it itself, with tsx as a loader: the `tsx` command would
 * run it in a process of its own, which a SIGKILL sent to the command never reaches (the batch would go on running).
 */
export function spawnBatchChild(args: string[]): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}
