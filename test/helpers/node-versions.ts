/**
 * A node binary of a given major version, for tests that run the built package under several Nodes: the node running
 * the tests when it is that version, else AVATAR_VIDEO_NODE<major> (set by .ci/run), else the `node` package of npm
 * installed once into .tmp/nodes/node<major> and kept for later runs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = fileURLToPath(new URL('../../.tmp/nodes', import.meta.url));

/** Where a test gets Node `major`: the binary, or why there is none. */
export type NodeBinary = { path: string; version: string } | { missing: string };

/** Node `major`, found or installed; never rejects (a missing one is for the test to skip or, under CI, fail on). */
export async function nodeBinary(major: number): Promise<NodeBinary> {
  try {
    const path = await findOrInstall(major);
    const { stdout } = await run(path, ['--version']);
    const version = stdout.trim();
    if (!version.startsWith(`v${major}.`)) return { missing: `${path} is Node ${version}, not ${major}` };
    return { path, version };
  } catch (error) {
    return { missing: `no Node ${major}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function findOrInstall(major: number): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const fromEnv = process.env[`AVATAR_VIDEO_NODE${major}`];
  if (fromEnv) return fromEnv;
  const folder = join(CACHE, `node${major}`);
  const binary = join(folder, 'node_modules', '.bin', 'node');
  if (existsSync(binary)) return binary;
  // Installed beside, then renamed into place: a run that stops halfway leaves no folder that looks complete.
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await run('npm', ['install', '--prefix', partial, '--no-save', '--no-audit', '--no-fund', `node@${major}`], { timeout: 300_000 });
  await rename(partial, folder).catch(async (error: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    // Another run installed it first.
    if (!existsSync(binary)) throw error;
  });
  return binary;
}
