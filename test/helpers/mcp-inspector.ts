/**
 * `@modelcontextprotocol/inspector`, the third-party MCP client the e2e tests drive in `--cli` mode. It needs Node
 * >= 22.19, so it runs on Node 24 (node-versions.ts: AVATAR_VIDEO_NODE24 under .ci/run); it is installed with that
 * Node's npm once into .tmp/tools/inspector-<version> and kept for later runs, as runtimes.ts keeps Bun and Deno.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { nodeBinary } from './node-versions.js';

const run = promisify(execFile);
const CACHE = fileURLToPath(new URL('../../.tmp/tools', import.meta.url));

export const INSPECTOR_VERSION = '2.12.0';

/** How to run the inspector: the Node and its launcher script, or why there is none. */
export type Inspector = { node: string; script: string } | { missing: string };

/** The inspector at its pinned version on Node 24, found or installed; never rejects. */
export async function inspector(): Promise<Inspector> {
  const node = await nodeBinary(24);
  if ('missing' in node) return node;
  try {
    return { node: node.path, script: await findOrInstall(node.path) };
  } catch (error) {
    return { missing: `no MCP inspector ${INSPECTOR_VERSION}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function findOrInstall(node: string): Promise<string> {
  const folder = join(CACHE, `inspector-${INSPECTOR_VERSION}`);
  const script = join(folder, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  if (existsSync(script)) return script;
  // Installed beside, then renamed into place: a run that stops halfway leaves no folder that looks complete.
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  const args = [
    'install',
    '--prefix',
    partial,
    '--no-save',
    '--no-audit',
    '--no-fund',
    `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
  ];
  // Node 24 first on PATH: npm (found beside it when it ships one) and any install script run on the Node it needs.
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  await run('npm', args, { timeout: 300_000, env });
  await rename(partial, folder).catch(async (error: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(script)) throw error; // another run installed it first otherwise
  });
  return script;
}
