import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AvatarVideoError } from '../../errors.js';
import type { ValidateOptions } from '../media/validate.js';
import { checkItems } from './check.js';
import { LedgerWriter, readLedger } from './ledger.js';
import { estimateEta } from './progress.js';
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

  const results: BatchItemResult[] = new Array(checked.length);
  const count = { done: 0, failed: 0, running: 0, finishedHere: 0 };
  const started = performance.now();
  const report = () =>
    onProgress?.({
      done: count.done,
      failed: count.failed,
      running: count.running,
      total: checked.length,
      etaSeconds: estimateEta(count.finishedHere, checked.length - count.done - count.failed, performance.now() - started),
    });
  const limiter = jobs.limiter;
  const ctx: ItemContext = {
    jobs,
    ledger,
    outputDir: dir,
    slot:
      concurrency === 'auto'
        ? (s) => limiter.acquire(s)
        : async (s) => {
            await limiter.paused(s);
            return limiter.adopt();
          },
    waitOptions: wait,
    maxAttempts,
    signal,
    onRunning: (delta) => {
      count.running += delta;
      report();
    },
  };

  let next = 0;
  let stop: { error: unknown } | undefined;
  const worker = async () => {
    while (stop === undefined && next < checked.length) {
      const position = next++;
      try {
        const result = await runItem(checked[position]!, entries.get(checked[position]!.key), ctx);
        results[position] = result;
        if (result.status === 'failed') count.failed += 1;
        else count.done += 1;
        if (result.status !== 'skipped') count.finishedHere += 1;
        onItem?.(result);
        report();
      } catch (error) {
        // An abort, or the ledger could not be written: start nothing more; running items end on their own.
        stop ??= { error };
      }
    }
  };
  report();
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency === 'auto' ? maxConcurrency : concurrency, checked.length) }, worker));
  } finally {
    await ledger.close();
  }
  if (stop) throw stop.error;
  return {
    completed: results.filter((r) => r.status === 'complete').length,
    failed: count.failed,
    skipped: results.filter((r) => r.status === 'skipped').length,
    results,
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
