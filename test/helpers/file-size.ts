import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of the files under `path` (symlinks not followed), as npm counts an unpacked package. */
export async function sizeOf(path: string): Promise<number> {
  const stats = await lstat(path);
  if (!stats.isDirectory()) return stats.isFile() ? stats.size : 0;
  const sizes = await Promise.all((await readdir(path)).map((entry) => sizeOf(join(path, entry))));
  return sizes.reduce((sum, size) => sum + size, 0);
}
