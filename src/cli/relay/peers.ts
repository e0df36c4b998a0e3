/**
 * BullMQ and its Redis driver, ioredis: optional peers of the package, which the relay loads on use. Missing ones
 * are a usage error that says what to install, before anything connects.
 */
import { createRequire } from 'node:module';
import { UsageError } from '../usage-error.js';

export type BullMQ = typeof import('bullmq');

/**
 * The problem of the peers `resolve` cannot find (it throws for a package that is not installed, as
 * `import.meta.resolve` does): ioredis is looked for from where bullmq is, since bullmq is what loads it.
 */
export function missingPeers(resolve: (name: string, from?: string) => string): UsageError | undefined {
  const missing: string[] = [];
  let bullmq: string | undefined;
  try {
    bullmq = resolve('bullmq');
  } catch {
    missing.push('bullmq');
  }
  try {
    resolve('ioredis', bullmq);
  } catch {
    missing.push('ioredis');
  }
  if (missing.length === 0) return undefined;
  const message =
    `the relay runs on BullMQ and Redis, and ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed: ` +
    `npm install ${missing.join(' ')} (next to avatar-video, or globally with -g beside a global avatar-video)`;
  return new UsageError([{ code: 'missing_peer', message }]);
}

/** Resolve `name` as this module would import it, or from the module at `from` (a file: URL). */
function resolveFromHere(name: string, from?: string): string {
  return from === undefined ? import.meta.resolve(name) : createRequire(from).resolve(name);
}

/** BullMQ, loaded. @throws UsageError naming what to install, when bullmq or ioredis is not there. */
export async function loadBullMQ(resolve = resolveFromHere): Promise<BullMQ> {
  const problem = missingPeers(resolve);
  if (problem) throw problem;
  return import('bullmq');
}
