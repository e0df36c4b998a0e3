/**
 * A node binary of a given major version, for tests that run the built package under several Nodes: the node running
 * the tests when it is that version, else AVATAR_VIDEO_NODE<major> (set by .ci/run), else the `node` package of npm
 * installed once into .tmp/nodes/node<major> (npm-tool.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Found, missing, npmTool } from './npm-tool.js';

const run = promisify(execFile);

/** Where a test gets Node `major`: the binary, or why there is none. */
export type NodeBinary = Found<{ path: string; version: string }>;

/** Node `major`, found or installed; never rejects (a missing one is for the test to skip or, under CI, fail on). */
export async function nodeBinary(major: number): Promise<NodeBinary> {
  try {
    const path = await findOrInstall(major);
    const { stdout } = await run(path, ['--version']);
    const version = stdout.trim();
    if (!version.startsWith(`v${major}.`)) return { missing: `${path} is Node ${version}, not ${major}` };
    return { path, version };
  } catch (error) {
    return missing(`Node ${major}`, error);
  }
}

function findOrInstall(major: number): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) === major) return Promise.resolve(process.execPath);
  return npmTool({ spec: `node@${major}`, folder: `nodes/node${major}`, file: '.bin/node', env: `AVATAR_VIDEO_NODE${major}` });
}
