import { mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A new folder under the repository's git-ignored `.tmp/` (made first: a fresh clone has none), where the
 * repository's node_modules still resolves for what the bench builds or installs there.
 */
export async function repoTemp(prefix: string): Promise<string> {
  await mkdir(join(ROOT, '.tmp'), { recursive: true });
  return mkdtemp(join(ROOT, '.tmp', prefix));
}
