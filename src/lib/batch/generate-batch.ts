import { rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AvatarVideoError } from '../../errors.js';
import { removeStaleTempFiles } from '../../internal/atomic-file.js';
import type { ConcurrencyLimiter, Permit } from '../../internal/concurrency-limiter.js';
import { prepareOutputFolder } from '../../internal/output-path.js';
import { runPool } from '../../internal/run-pool.js';
import type { JobPlaces } from '../job-permit.js';
import { checkItems } from './check.js';
import type { BatchJobs, ItemContext } from './context.js';
import { LedgerWriter, readLedger } from './ledger.js';
import { WORK_FOLDER } from './long-item.js';
import { ProgressTally } from './progress.js';
import { runItem } from './run-item.js';
import type { BatchItem, BatchItemResult, BatchSummary, GenerateBatchOptions } from './types.js';

/**
 * @internal The engine of `videos.generateBatch`: check every item, then take them through a pool whose
 * size the client's limiter decides (or a fixed one), keeping the ledger in the output folder.
 */
export async function generateBatch(
  jobs: BatchJobs,
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  options: GenerateBatchOptions,
): Promise<BatchSummary> {
  const { outputDir, concurrency = 'auto', maxConcurrency = 16, maxAttempts = 3, onItem, onProgress, signal, ...wait } = options;
  checkOptions(concurrency, maxConcurrency, maxAttempts);
  const dir = resolve(outputDir);
  await prepareOutputFolder(dir);
  const entries = await readLedger(dir);
  // Partial saves of a killed run, never whole, never reused: every item that got as far as saving is in the ledger.
  const outputs = Array.from(entries.keys(), (key) => `${key}.mp4`);
  await removeStaleTempFiles(dir, outputs);
  const checked = await checkItems(items, entries, jobs.limits);
  const ledger = await LedgerWriter.open(dir);

  const tally = new ProgressTally(checked.length, onProgress);
  const ctx: ItemContext = {
    jobs,
    ledger,
    outputDir: dir,
    places: placesFor(jobs.limiter, concurrency, (delta) => tally.running(delta)),
    waitOptions: wait,
    maxAttempts,
    signal,
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
    // Long items remove their own work folders once saved; the parent goes when none is left.
    await rmdir(join(dir, WORK_FOLDER)).catch(() => {});
  }
  const counts = { complete: 0, failed: 0, skipped: 0 };
  for (const result of results) counts[result.status] += 1;
  return { completed: counts.complete, failed: counts.failed, skipped: counts.skipped, results };
}

/**
 * Where the batch's jobs (items' and long items' segments') get their places: a new job from the client's adaptive
 * limit, or (fixed) from the batch's own workers after any Retry-After; a job already made joins the count. Each
 * place counts as running, for the progress, until it is released.
 */
function placesFor(limiter: ConcurrencyLimiter, concurrency: number | 'auto', onRunning: (delta: 1 | -1) => void): JobPlaces {
  const counted = (permit: Permit): Permit => {
    onRunning(1);
    let held = true;
    return {
      startedAt: permit.startedAt,
      release: (outcome, retryAfterMs) => {
        permit.release(outcome, retryAfterMs);
        if (held) onRunning(-1);
        held = false;
      },
    };
  };
  return {
    acquire: async (signal) => {
      if (concurrency === 'auto') return counted(await limiter.acquire(signal));
      await limiter.paused(signal);
      return counted(limiter.adopt());
    },
    adopt: () => counted(limiter.adopt()),
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
