import { rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { removeStaleTempFiles } from '../../internal/atomic-file.js';
import { deprecatedOption } from '../../internal/deprecated.js';
import { prepareOutputFolder, removeCreatedFolders } from '../../internal/output-path.js';
import { runPool } from '../../internal/run-pool.js';
import type { Endpoints, JobContext } from '../endpoints.js';
import { DEFAULT_JOB_ATTEMPTS } from '../job-policy.js';
import { workWidth } from '../job-runner.js';
import { checkItems } from './check.js';
import type { ItemContext, LongMaker } from './context.js';
import { LedgerWriter, readLedger } from './ledger.js';
import { WORK_FOLDER } from './long-item.js';
import { ProgressTally } from './progress.js';
import { runItem } from './run-item.js';
import type { BatchItem, BatchItemResult, BatchSummary, GenerateBatchOptions } from './types.js';

/**
 * @internal The engine of `videos.generateBatch`: check every item, then take them through a pool of the batch's
 * width whose jobs the client's limiter places, keeping the ledger in the output folder.
 */
export async function generateBatch(
  api: Endpoints,
  context: JobContext,
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  options: GenerateBatchOptions,
  makeLong: LongMaker,
): Promise<BatchSummary> {
  const { outputDir, onItem, onUploadProgress, signal, pollInterval, maxPollInterval, waitTimeout } = options;
  const wait = { pollInterval, maxPollInterval, waitTimeout };
  const maxJobAttempts = deprecatedOption(options, 'maxAttempts', 'maxJobAttempts', context.logger) ?? DEFAULT_JOB_ATTEMPTS;
  const width = workWidth(deprecatedOption(options, 'maxConcurrency', 'concurrency', context.logger), context.limiter);
  const dir = resolve(outputDir);
  const { created } = await prepareOutputFolder(dir);
  const entries = await readLedger(dir);
  // Partial saves of a killed run, never whole, never reused: every item that got as far as saving is in the ledger.
  const outputs = Array.from(entries.keys(), (key) => `${key}.mp4`);
  await removeStaleTempFiles(dir, outputs);
  const checked = await checkItems(items, entries, context.limits).catch(async (error: unknown) => {
    // Refused items leave no trace: not even the folder this run made for them.
    if (created !== undefined) await removeCreatedFolders(dir, created);
    throw error;
  });
  const ledger = await LedgerWriter.open(dir);

  const tally = new ProgressTally(checked.length, deprecatedOption(options, 'onProgress', 'onRunProgress', context.logger));
  const ctx: ItemContext = {
    api,
    context,
    ledger,
    outputDir: dir,
    waitOptions: wait,
    maxJobAttempts,
    onUploadProgress,
    onRunning: undefined,
    signal,
    makeLong,
  };
  tally.report();
  let results: BatchItemResult[];
  try {
    // The width bounds the items in hand; the limiter, not this width, decides how many of their jobs run.
    results = await runPool(checked, width, async (item) => {
      const result = await runItem(item, entries.get(item.key), { ...ctx, onRunning: tally.jobsOf(item.key) });
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
