import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AvatarVideoError } from '../../errors.js';
import type { ConcurrencyLimiter } from '../../internal/concurrency-limiter.js';
import { runPool } from '../../internal/run-pool.js';
import type { ValidateOptions } from '../media/validate.js';
import { checkItems } from './check.js';
import { LedgerWriter, readLedger } from './ledger.js';
import { ProgressTally } from './progress.js';
import { type BatchJobs, type ItemContext, runItem } from './run-item.js';
import type { BatchItem, BatchItemResult, BatchSummary, GenerateBatchOptions } from './types.js';

/**
 * @internal The engine of `videos.generateBatch`: check every item, then take them through a pool whose
 * size the client's limiter decides (or a fixed one), keeping the ledger in the output folder.
 */
export async function generateBatch(
  jobs: BatchJobs & { limits: ValidateOptions },
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  options: GenerateBatchOptions,
): Promise<BatchSummary> {
  const { outputDir, concurrency = 'auto', maxConcurrency = 16, maxAttempts = 3, onItem, onProgress, signal, ...wait } = options;
  checkOptions(concurrency, maxConcurrency, maxAttempts);
  const dir = resolve(outputDir);
  await mkdir(dir, { recursive: true });
  await removeStaleParts(dir);
  const entries = await readLedger(dir);
  const checked = await checkItems(items, entries, jobs.limits);
  const ledger = await LedgerWriter.open(dir);

  const tally = new ProgressTally(checked.length, onProgress);
  const ctx: ItemContext = {
    jobs,
    ledger,
    outputDir: dir,
    slot: slotFor(jobs.limiter, concurrency),
    waitOptions: wait,
    maxAttempts,
    signal,
    onRunning: (delta) => tally.running(delta),
  };
  tally.report();
  const workers = concurrency === 'auto' ? maxConcurrency : concurrency;
  let results: BatchItemResult[];
  try {
    results = await runPool(checked, workers, async (item) => {
      const result = await runItem(item, entries.get(item.key), ctx);
      tally.finished(result);
      onItem?.(result);
      tally.report();
      return result;
    });
  } finally {
    await ledger.close();
  }
  const counts = { complete: 0, failed: 0, skipped: 0 };
  for (const result of results) counts[result.status] += 1;
  return { completed: counts.complete, failed: counts.failed, skipped: counts.skipped, results };
}

/** Where a new job gets its place: the client's adaptive limit, or (fixed) the batch's own workers, after any Retry-After. */
function slotFor(limiter: ConcurrencyLimiter, concurrency: number | 'auto'): ItemContext['slot'] {
  if (concurrency === 'auto') return (signal) => limiter.acquire(signal);
  return async (signal) => {
    await limiter.paused(signal);
    return limiter.adopt();
  };
}

function checkOptions(concurrency: number | 'auto', maxConcurrency: number, maxAttempts: number): void {
  const whole = (value: number) => Number.isInteger(value) && value >= 1;
  if (concurrency !== 'auto' && !whole(concurrency)) {
    throw new AvatarVideoError(`concurrency must be 'auto' or a whole number of at least 1, got ${String(concurrency)}.`);
  }
  if (!whole(maxConcurrency)) throw new AvatarVideoError(`maxConcurrency must be a whole number of at least 1, got ${maxConcurrency}.`);
  if (!whole(maxAttempts)) throw new AvatarVideoError(`maxAttempts must be a whole number of at least 1, got ${maxAttempts}.`);
}

/** Partial downloads (`.<key>.mp4.<hex>.part`) of an earlier run that was killed: never whole, never reused. */
const STALE_PART = /^\..+\.mp4\.[0-9a-f]{12}\.part$/;

async function removeStaleParts(dir: string): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(names.filter((name) => STALE_PART.test(name)).map((name) => rm(join(dir, name), { force: true })));
}
