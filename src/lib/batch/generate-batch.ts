import { rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { removeStaleTempFiles } from '../../internal/atomic-file.js';
import { concurrencyBounds } from '../../internal/concurrency-limiter.js';
import { prepareOutputFolder, removeCreatedFolders } from '../../internal/output-path.js';
import { DEFAULT_JOB_ATTEMPTS } from '../../internal/retry.js';
import { runPool } from '../../internal/run-pool.js';
import { jobPlaces } from '../make-job.js';
import { checkItems } from './check.js';
import type { BatchJobs, ItemContext } from './context.js';
import { LedgerWriter, readLedger } from './ledger.js';
import { WORK_FOLDER } from './long-item.js';
import { ProgressTally } from './progress.js';
import { runItem } from './run-item.js';
import type { BatchItem, BatchItemResult, BatchSummary, GenerateBatchOptions } from './types.js';

/**
 * @internal The engine of `videos.generateBatch`: check every item, then take them through a pool whose jobs the
 * client's limiter places (within the batch's own bounds, when it has some), keeping the ledger in the output folder.
 */
export async function generateBatch(
  jobs: BatchJobs,
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  options: GenerateBatchOptions,
): Promise<BatchSummary> {
  const { outputDir, concurrency, maxConcurrency, maxAttempts = DEFAULT_JOB_ATTEMPTS, onItem, onProgress, signal, ...wait } = options;
  const bounds = batchBounds(concurrency, maxConcurrency);
  const dir = resolve(outputDir);
  const { created } = await prepareOutputFolder(dir);
  const entries = await readLedger(dir);
  // Partial saves of a killed run, never whole, never reused: every item that got as far as saving is in the ledger.
  const outputs = Array.from(entries.keys(), (key) => `${key}.mp4`);
  await removeStaleTempFiles(dir, outputs);
  const checked = await checkItems(items, entries, jobs.limits).catch(async (error: unknown) => {
    // Refused items leave no trace: not even the folder this run made for them.
    if (created !== undefined) await removeCreatedFolders(dir, created);
    throw error;
  });
  const ledger = await LedgerWriter.open(dir);

  const tally = new ProgressTally(checked.length, onProgress);
  const places = jobPlaces(jobs.limiter, bounds, (delta) => tally.running(delta));
  const ctx: ItemContext = { jobs, ledger, outputDir: dir, places, waitOptions: wait, maxAttempts, signal };
  tally.report();
  let results: BatchItemResult[];
  try {
    // As many items in hand as the limit can ever let run: the limiter, not this width, decides how many jobs run.
    results = await runPool(checked, (bounds ?? jobs.limiter.bounds).max, async (item) => {
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

/** The bounds of the batch's jobs: fixed by `concurrency`, or the client's limit capped by `maxConcurrency`. */
function batchBounds(concurrency: number | 'auto' | undefined, maxConcurrency: number | undefined) {
  const fixed = concurrencyBounds(concurrency, 'concurrency');
  const cap = concurrencyBounds(maxConcurrency, 'maxConcurrency');
  return fixed ?? (cap && { min: 1, max: cap.max });
}
