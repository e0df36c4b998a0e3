import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * A project as a user makes one, outside the repository: `npm init -y` (CommonJS, npm's default), then the packed
 * package (`dir`, an extracted tarball) laid out as `npm install avatar-video` lays it out: in node_modules, its
 * dependencies beside it (linked to this repository's copies, so no registry is asked), its command in
 * node_modules/.bin. msw too, while the package still names it as a peer the mock needs.
 * Removed by `closers` at the end of the file.
 */
export async function freshProject(dir: string, closers: { push(close: () => Promise<void>): void }): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'avatar-video-fresh-'));
  closers.push(() => rm(project, { recursive: true, force: true }));
  // npm is npm.cmd on Windows, which only a shell runs.
  await run('npm', ['init', '-y'], { cwd: project, shell: process.platform === 'win32' });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    dependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  await cp(dir, join(project, 'node_modules', 'avatar-video'), { recursive: true });
  const needed = [...Object.keys(manifest.dependencies), ...('msw' in (manifest.peerDependencies ?? {}) ? ['msw'] : [])];
  for (const name of needed) {
    await mkdir(dirname(join(project, 'node_modules', name)), { recursive: true });
    await symlink(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }
  await mkdir(join(project, 'node_modules', '.bin'));
  for (const [name, path] of Object.entries(manifest.bin)) {
    await symlink(join('..', 'avatar-video', path), join(project, 'node_modules', '.bin', name));
  }
  return project;
}
