import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SegmentFailedError } from '../../errors.js';
import { shorten } from '../../internal/shorten.js';
import type { CheckedItem } from './check.js';
import type { ItemContext } from './context.js';
import { batchAborted, describeItemError, failed } from './item-error.js';
import type { BatchItemResult } from './types.js';

/** Folder of `outputDir` where long items keep their segments until saved: `.work/<key>/`, found again by a rerun. */
export const WORK_FOLDER = '.work';

/**
 * Make an item whose audio is longer than one job allows as `generateLong` makes a long video: split at quiet
 * points, one job per segment, joined without re-encoding. The ledger records the item (and so its inputs' hash)
 * before any segment is created; the manifest in its work folder records every segment job, so a rerun over
 * the same folder waits on them instead of paying again.
 */
export async function runLongItem(item: CheckedItem, path: string, ctx: ItemContext): Promise<BatchItemResult> {
  const { key, hash } = item;
  const workDir = join(ctx.outputDir, WORK_FOLDER, key);
  const { pollInterval, maxPollInterval, waitTimeout } = ctx.waitOptions;
  await ctx.ledger.append({ key, hash, state: 'creating' });
  let made: Awaited<ReturnType<ItemContext['makeLong']>>;
  try {
    made = await ctx.makeLong(
      ctx.api,
      ctx.context,
      item.params,
      {
        pollInterval,
        maxPollInterval,
        waitTimeout,
        output: path,
        workDir,
        maxJobAttempts: ctx.maxJobAttempts,
        onUploadProgress: ctx.onUploadProgress,
        // Removed once the ledger says saved: a crash in between finds the segments again instead of paying twice.
        keepWorkDir: true,
        signal: ctx.signal,
      },
      // Its segments' jobs count among the batch's running ones.
      ctx.onRunning,
    );
  } catch (error) {
    if (ctx.signal?.aborted) throw batchAborted(error, ctx.signal);
    return longFailure(key, workDir, error);
  }
  const segmentIds = made.segments.map((video) => video.id);
  await ctx.ledger.append({ key, hash, state: 'saved', segmentIds, path: made.path, bytes: made.bytes });
  await rm(workDir, { recursive: true, force: true });
  return { key, status: 'complete', segmentVideoIds: segmentIds, path: made.path };
}

/** A long item's failure; the segment jobs made so far stay in its work folder for a rerun. */
function longFailure(key: string, workDir: string, error: unknown): BatchItemResult {
  // Its message names the segment, its last job and the folder already.
  if (error instanceof SegmentFailedError) return failed(key, error.jobId || undefined, error);
  const { code } = describeItemError(error, undefined);
  const message = `${error instanceof Error ? error.message : String(error)} Segment jobs already made are recorded in ${shorten(workDir)}: run the batch again over the same folder to resume them.`;
  return { key, status: 'failed', error: { code, message } };
}
