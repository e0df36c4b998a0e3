import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { BUILD_RESULT } from '../setup/build.js';

/**
 * This run's build of the package, installed in a consumer folder (test/setup/build.ts, so for e2e tests only).
 * Resolves once the build has ended; rejects with tsup's output if it failed.
 */
export async function builtPackage() {
  const consumer = inject('consumerDir');
  const result = (await whenWritten(join(consumer, BUILD_RESULT))) as { ok: boolean; error?: string; tarball?: string };
  if (!result.ok) throw new Error(`the package did not build for the e2e tests:\n${result.error}`);
  const dir = join(consumer, 'node_modules', 'avatar-video');
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return {
    /** A package of its own, where `require('avatar-video')` finds the build. */
    consumer,
    /** The installed package: the `npm pack` tarball of this run's build, extracted. */
    dir,
    /** That tarball. */
    tarball: result.tarball as string,
    /** The `avatar-video` command, found through package.json's `bin` as npm finds it. */
    bin: join(dir, manifest.bin['avatar-video'] ?? 'missing bin entry'),
  };
}

/**
 * A fresh folder of the caller's own inside the consumer folder (so it finds the package in the consumer's
 * node_modules), removed by `closers` at the end of the test or file that made it.
 */
export async function consumerFolder(prefix: string, closers: { push(close: () => Promise<void>): void }): Promise<string> {
  const folder = await mkdtemp(join(inject('consumerDir'), prefix));
  closers.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** The JSON in `path`, once it exists. */
async function whenWritten(path: string): Promise<unknown> {
  // A bound only so that a setup that never ends fails the files rather than hanging the run.
  for (const started = Date.now(); Date.now() - started < 600_000; ) {
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) return JSON.parse(text);
    await sleep(100);
  }
  throw new Error(`no ${path} after 10 minutes: did test/setup/build.ts run?`);
}
