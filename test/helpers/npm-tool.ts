/**
 * A tool the tests take from the npm registry (a Node, Bun, Deno, the MCP inspector): installed once into
 * `.tmp/<folder>` and kept for later runs, unless an environment variable (set by .ci/run) names one already there.
 */
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import type { TestContext } from 'vitest';
import { npmInstallOrThrow } from './npm-install.js';

const TMP = fileURLToPath(new URL('../../.tmp', import.meta.url));

/** Which tool, where it goes, and what of it a test runs. */
export interface NpmTool {
  /** What `npm install` is given: `name@version`. */
  spec: string;
  /** Its folder under .tmp/, named by version so that a new pin installs beside the old one. */
  folder: string;
  /** The file a test runs, relative to the folder's node_modules: `.bin/<name>` or a package's own script. */
  file: string;
  /** An environment variable that, when set, is the path to use instead of installing. */
  env?: string;
  /** The Node whose npm installs it (put first on PATH), for a package whose install needs a newer Node than this. */
  node?: string;
}

/** A tool found, or why not: a test skips on `missing`, or under CI=true fails (`usable`). */
export type Found<T extends object> = T | { missing: string };

/** The path of `tool`'s file: the override, the kept install, or a new install; rejects when npm fails. */
export async function npmTool(tool: NpmTool): Promise<string> {
  const fromEnv = tool.env ? process.env[tool.env] : undefined;
  if (fromEnv) return fromEnv;
  const folder = join(TMP, tool.folder);
  const file = join(folder, 'node_modules', tool.file);
  if (existsSync(file)) return file;
  // Installed beside (one folder per process and worker thread), then renamed into place: test files installing at
  // once each finish whole, the first rename wins, and a run stopped halfway leaves no folder that looks complete.
  const partial = `${folder}.partial-${process.pid}-${threadId}`;
  await rm(partial, { recursive: true, force: true });
  const env = tool.node ? { ...process.env, PATH: `${dirname(tool.node)}${delimiter}${process.env.PATH ?? ''}` } : process.env;
  await npmInstallOrThrow(['--prefix', partial, '--no-save', '--no-audit', '--no-fund', tool.spec], { timeout: 300_000, env });
  await rename(partial, folder).catch(async (error: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(file)) throw error; // another test file installed it first otherwise
  });
  return file;
}

/** What a test runs: the tool found; a missing one skips the test, or under CI=true fails it. */
export function usable<T extends object>(context: TestContext, found: Found<T>): T {
  if (!('missing' in found)) return found;
  if (process.env.CI === 'true') throw new Error(found.missing);
  return context.skip(found.missing);
}

/** The message of a tool that could not be had. */
export function missing(what: string, error: unknown): { missing: string } {
  return { missing: `no ${what}: ${error instanceof Error ? error.message : String(error)}` };
}
