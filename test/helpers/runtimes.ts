/**
 * Bun and Deno binaries of the versions issue 27 names, for tests that run the packed package in them: the path in
 * AVATAR_VIDEO_BUN / AVATAR_VIDEO_DENO (set by .ci/run), else npm's `bun` / `deno` package installed once into
 * .tmp/runtimes/<name>-<version> (npm-tool.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Found, missing, npmTool } from './npm-tool.js';

const run = promisify(execFile);

export const RUNTIMES = { bun: '1.4.4', deno: '2.9.6' } as const;
export type Runtime = keyof typeof RUNTIMES;

/** Where a test gets a runtime: the binary, or why there is none (a test skips, or under CI=true fails, on it). */
export type RuntimeBinary = Found<{ path: string; version: string }>;

/** `name` at its pinned version, found or installed; never rejects. */
export async function runtimeBinary(name: Runtime): Promise<RuntimeBinary> {
  try {
    const path = await npmTool({
      spec: `${name}@${RUNTIMES[name]}`,
      folder: `runtimes/${name}-${RUNTIMES[name]}`,
      file: `.bin/${name}`,
      env: `AVATAR_VIDEO_${name.toUpperCase()}`,
    });
    const { stdout } = await run(path, ['--version']);
    const version = /\d+\.\d+\.\d+/.exec(stdout)?.[0] ?? stdout.trim();
    if (version !== RUNTIMES[name]) return { missing: `${path} is ${name} ${version}, not ${RUNTIMES[name]}` };
    return { path, version };
  } catch (error) {
    return missing(`${name} ${RUNTIMES[name]}`, error);
  }
}
