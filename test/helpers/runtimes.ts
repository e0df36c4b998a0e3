/**
 * Bun and Deno binaries of the versions issue 27 names, for tests that run the packed package in them: the path in
 * AVATAR_VIDEO_BUN / AVATAR_VIDEO_DENO (set by .ci/run), else npm's `bun` / `deno` package installed once into
 * .tmp/runtimes/<name>-<version> and kept for later runs (as node-versions.ts does for Node).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = fileURLToPath(new URL('../../.tmp/runtimes', import.meta.url));

export const RUNTIMES = { bun: '1.4.4', deno: '2.9.6' } as const;
export type Runtime = keyof typeof RUNTIMES;

/** Where a test gets a runtime: the binary, or why there is none (a test skips, or under CI=true fails, on it). */
export type RuntimeBinary = { path: string; version: string } | { missing: string };

/** `name` at its pinned version, found or installed; never rejects. */
export async function runtimeBinary(name: Runtime): Promise<RuntimeBinary> {
  try {
    const path = await findOrInstall(name);
    const { stdout } = await run(path, ['--version']);
    const version = /\d+\.\d+\.\d+/.exec(stdout)?.[0] ?? stdout.trim();
    if (version !== RUNTIMES[name]) return { missing: `${path} is ${name} ${version}, not ${RUNTIMES[name]}` };
    return { path, version };
  } catch (error) {
    return { missing: `no ${name} ${RUNTIMES[name]}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function findOrInstall(name: Runtime): Promise<string> {
  const fromEnv = process.env[`AVATAR_VIDEO_${name.toUpperCase()}`];
  if (fromEnv) return fromEnv;
  const folder = join(CACHE, `${name}-${RUNTIMES[name]}`);
  const binary = join(folder, 'node_modules', '.bin', name);
  if (existsSync(binary)) return binary;
  // Installed beside, then renamed into place: a run that stops halfway leaves no folder that looks complete.
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  const args = ['install', '--prefix', partial, '--no-save', '--no-audit', '--no-fund', `${name}@${RUNTIMES[name]}`];
  await run('npm', args, { timeout: 300_000 });
  await rename(partial, folder).catch(async (error: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(binary)) throw error; // another run installed it first otherwise
  });
  return binary;
}
