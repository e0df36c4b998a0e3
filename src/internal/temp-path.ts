import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A temp file untouched for this long is dead even if a process of its pid runs (the pid was reused). */
const ABANDONED_MS = 60 * 60_000;

/**
 * A hidden temporary path beside `destination`: `.<name>.<pid><random>.part`, the pid as 8 hex digits, so a
 * later run can tell a file left by a killed process from one another process is still writing.
 */
export function tempPathFor(destination: string): string {
  const tag = process.pid.toString(16).padStart(8, '0').slice(-8) + randomBytes(2).toString('hex');
  return join(dirname(destination), `.${basename(destination)}.${tag}.part`);
}

/**
 * Remove temp files of our own naming for `destination` that no live process writes: their pid is gone,
 * or nothing touched them for an hour. Never throws: cleaning up must not fail a download.
 */
export async function removeStaleTempFiles(destination: string, now = Date.now()): Promise<string[]> {
  const folder = dirname(destination);
  const prefix = `.${basename(destination)}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const tag = name.startsWith(prefix) && name.endsWith('.part') ? name.slice(prefix.length, -'.part'.length) : '';
    if (!/^[0-9a-f]{12}$/.test(tag)) continue;
    const path = join(folder, name);
    const modified = (await stat(path).catch(() => undefined))?.mtimeMs;
    if (modified === undefined) continue;
    if (processAlive(Number.parseInt(tag.slice(0, 8), 16)) && now - modified < ABANDONED_MS) continue;
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed.push(path);
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
