import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { APIUserAbortError, RateLimitError } from '../../errors.js';
import { rateLimitBackoff } from '../../internal/adaptive-concurrency.js';
import { retryDelay, shouldRetry } from '../../internal/retry.js';
import { sleep } from '../../internal/sleep.js';
import { describeFailure } from '../../internal/transport.js';
import type { Video } from '../../schemas.js';
import { VideoCancelledError, VideoFailedError } from '../errors.js';
import { jobOutcome } from '../job-permit.js';
import type { CheckedItem } from './check.js';
import type { ItemContext } from './context.js';
import { abortError, BATCH_ABORTED, failed } from './item-error.js';
import type { LedgerEntry } from './ledger.js';
import { runLongItem } from './long-item.js';
import type { BatchItemResult } from './types.js';

/** Creates refused before any job started (429, 503, a connection that sent nothing) before an item is given up. */
const MAX_REFUSED_CREATES = 20;

/**
 * Take one item to its end: skipped when already saved, made in segments when its audio is longer than one job
 * allows, else one job (resumed or created), waited on and saved.
 */
export async function runItem(item: CheckedItem, entry: LedgerEntry | undefined, ctx: ItemContext): Promise<BatchItemResult> {
  const path = join(ctx.outputDir, `${item.key}.mp4`);
  if (entry?.state === 'saved' && (await sizeIs(path, entry.bytes))) {
    const made = entry.segmentIds ? { segmentVideoIds: entry.segmentIds } : { videoId: entry.jobId };
    return { key: item.key, status: 'skipped', ...made, path };
  }
  return item.long ? runLongItem(item, path, ctx) : runJob(item, entry, path, ctx);
}

/** Make the item with one job: the one the ledger names, else a new one, created again after a rate-limited failure. */
async function runJob(item: CheckedItem, entry: LedgerEntry | undefined, path: string, ctx: ItemContext): Promise<BatchItemResult> {
  const { key, hash } = item;
  let jobId = entry?.state === 'created' || entry?.state === 'saved' ? entry.jobId : undefined;
  let attempts = 0;
  let refused = 0;
  for (;;) {
    if (ctx.signal?.aborted) throw new APIUserAbortError(BATCH_ABORTED, { cause: ctx.signal.reason });
    const permit = jobId ? ctx.places.adopt() : await ctx.places.acquire(ctx.signal);
    let video: Video;
    try {
      jobId ??= await createJob(item, ctx);
      video = await ctx.jobs.videos.waitForCompletion(jobId, { ...ctx.waitOptions, signal: ctx.signal });
      permit.release('completed');
    } catch (error) {
      permit.release(jobOutcome(error));
      if (ctx.signal?.aborted) throw abortError(error, ctx.signal);
      if (jobId === undefined) {
        // No job was made: retry what the server refused, report the rest.
        if (!(isRefusal(error) && ++refused <= MAX_REFUSED_CREATES)) return failed(key, undefined, error);
        if (!(error instanceof RateLimitError))
          await sleep(retryDelay(refused, undefined, { maxRetryDelay: 30_000 }) ?? 0, ctx.signal, BATCH_ABORTED);
        continue;
      }
      if (!(error instanceof VideoFailedError || error instanceof VideoCancelledError)) return failed(key, jobId, error);
      const code = error instanceof VideoFailedError ? (error.code ?? 'failed') : 'cancelled';
      await ctx.ledger.append({ key, hash, state: 'failed', jobId, code, message: error.message });
      attempts += 1;
      if (!(error instanceof VideoFailedError && error.isRateLimited) || attempts >= ctx.maxAttempts) {
        return failed(key, jobId, error, attempts);
      }
      jobId = undefined;
      await sleep(rateLimitBackoff(attempts, ctx.jobs.limiter.jobMs), ctx.signal, BATCH_ABORTED);
      continue;
    }
    try {
      const saved = await ctx.jobs.videos.download(video, path, { signal: ctx.signal });
      await ctx.ledger.append({ key, hash, state: 'saved', jobId, path: saved.path, bytes: saved.bytes });
      return { key, status: 'complete', videoId: jobId, path: saved.path };
    } catch (error) {
      if (ctx.signal?.aborted) throw abortError(error, ctx.signal);
      return failed(key, jobId, error);
    }
  }
}

/** Create the item's job, with the ledger written before the request and as soon as its answer names the job. */
async function createJob(item: CheckedItem, ctx: ItemContext): Promise<string> {
  await ctx.ledger.append({ key: item.key, hash: item.hash, state: 'creating' });
  // Refusals come back at once: the limiter, not a blind retry, decides when to try again.
  const video = await ctx.jobs.videos.create(item.params, { signal: ctx.signal, maxRetries: 0 });
  await ctx.ledger.append({ key: item.key, hash: item.hash, state: 'created', jobId: video.id });
  return video.id;
}

/** The server refused before starting a job, so creating again cannot pay twice. */
function isRefusal(error: unknown): boolean {
  return shouldRetry('create', describeFailure(error));
}

async function sizeIs(path: string, bytes: number | undefined): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true && info.size === bytes;
}
