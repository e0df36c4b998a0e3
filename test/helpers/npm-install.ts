/**
 * `npm install` as the tests run it (a user's project, a tool from the registry, the consumer's compilers): one
 * mechanism, which tries again when npm failed on the network and not on the packages. A registry that drops a
 * connection is not what any of these tests is about, and CI once went red on one (both msw installs, at once).
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** npm's own codes for a failed exchange with the registry (and an HTTP 5xx from it), as its stderr prints them. */
const NETWORK_CODES = /npm (?:error|ERR!) code (?:ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|EAI_AGAIN|ECONNREFUSED|ENOTFOUND|EPIPE|E5\d\d)\b/;
/** npm's line for a network failure that carries no code of its own. */
const NETWORK_LINE = /npm (?:error|ERR!) (?:network|errno ECONNRESET)/;
/** Tries in all: the first and two more, a few seconds apart. */
export const NPM_TRIES = 3;

/** Whether npm's stderr shows it failed on the network (worth another try), not on what it was asked to install. */
export function failedOnNetwork(stderr: string): boolean {
  return NETWORK_CODES.test(stderr) || NETWORK_LINE.test(stderr);
}

export interface NpmInstallResult {
  /** npm's exit code: 0 when it installed. */
  code: number;
  /** npm's stderr from the last try, to show in a failed assertion. */
  stderr: string;
  /** How many tries it took (or were made). */
  tries: number;
}

export interface NpmInstallOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Per try. */
  timeout: number;
}

/** `npm install ...args`; resolves with its code and stderr, never rejects, trying again on a network failure only. */
export async function npmInstall(args: string[], options: NpmInstallOptions): Promise<NpmInstallResult> {
  for (let tries = 1; ; tries += 1) {
    const done = await run('npm', ['install', ...args], options).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number | string; stderr?: string; message?: string }) => ({
        code: typeof error.code === 'number' ? error.code : 1,
        stderr: error.stderr || error.message || '',
      }),
    );
    if (done.code === 0 || tries >= NPM_TRIES || !failedOnNetwork(done.stderr)) return { ...done, tries };
    await sleep(2_000 * tries);
  }
}

/** `npmInstall` for a set-up that cannot go on without it: rejects with npm's stderr when it fails. */
export async function npmInstallOrThrow(args: string[], options: NpmInstallOptions): Promise<void> {
  const done = await npmInstall(args, options);
  if (done.code !== 0) throw new Error(`npm install ${args.join(' ')} failed (exit ${done.code}, ${done.tries} tries):\n${done.stderr}`);
}
