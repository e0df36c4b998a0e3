import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { APIUserAbortError, RateLimitError } from '../../errors.js';
import { rateLimitBackoff } from '../../internal/adaptive-concurrency.js';
import type { ConcurrencyLimiter, Permit } from '../../internal/concurrency-limiter.js';
import { isRetryable, retryDelay } from '../../internal/retry.js';
import { sleep } from '../../internal/sleep.js';
import type { Video } from '../../schemas.js';
import { VideoCancelledError, VideoFailedError } from '../errors.js';
import { jobOutcome } from '../job-permit.js';
import type { VideoCreateParams } from '../media/prepare.js';
import type { WaitOptions } from '../wait.js';
import type { CheckedItem } from './check.js';
import { failed } from './item-error.js';
import type { LedgerEntry, LedgerWriter } from './ledger.js';
import type { BatchItemResult } from './types.js';

/** The few client operations a batch needs, passed in so that this layer never reaches for the client. */
export interface BatchJobs {
  create(params: VideoCreateParams, options: { signal?: AbortSignal | undefined; maxRetries?: number }): Promise<Video>;
  waitForCompletion(id: string, options: WaitOptions): Promise<Video>;
  download(video: Video, path: string, options: { signal?: AbortSignal | undefined }): Promise<{ path: string; bytes: number }>;
  limiter: ConcurrencyLimiter;
}

export interface ItemContext {
  jobs: BatchJobs;
  ledger: LedgerWriter;
  outputDir: string;
  /** A place for a new job: the shared adaptive limit, or a fixed number of workers. */
  slot(signal: AbortSignal | undefined): Promise<Permit>;
  waitOptions: WaitOptions;
  maxAttempts: number;
  signal: AbortSignal | undefined;
  /** An item's job started (+1) or ended (-1) on the service. */
  onRunning(delta: 1 | -1): void;
}

const BATCH_ABORTED = 'The batch was aborted.';

/** Creates refused before any job started (429, 503, a connection that sent nothing) before an item is given up. */
const MAX_REFUSED_CREATES = 20;

/** Take one item to its end: skipped when already saved, else a job (resumed or created), waited on and saved. */
export async function runItem(item: CheckedItem, entry: LedgerEntry | undefined, ctx: ItemContext): Promise<BatchItemResult> {
  const { key, hash } = item;
  const path = join(ctx.outputDir, `${key}.mp4`);
  if (entry?.state === 'saved' && entry.jobId && (await sizeIs(path, entry.bytes))) {
    return { key, status: 'skipped', videoId: entry.jobId, path };
  }
  let jobId = entry?.state === 'created' || entry?.state === 'saved' ? entry.jobId : undefined;
  let attempts = 0;
  let refused = 0;
  for (;;) {
    if (ctx.signal?.aborted) throw new APIUserAbortError(BATCH_ABORTED, { cause: ctx.signal.reason });
    const permit = jobId ? ctx.jobs.limiter.adopt() : await ctx.slot(ctx.signal);
    ctx.onRunning(1);
    let video: Video;
    try {
      jobId ??= await createJob(item, ctx);
      video = await ctx.jobs.waitForCompletion(jobId, { ...ctx.waitOptions, signal: ctx.signal });
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
    } finally {
      ctx.onRunning(-1);
    }
    try {
      const saved = await ctx.jobs.download(video, path, { signal: ctx.signal });
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
  const video = await ctx.jobs.create(item.params, { signal: ctx.signal, maxRetries: 0 });
  await ctx.ledger.append({ key: item.key, hash: item.hash, state: 'created', jobId: video.id });
  return video.id;
}

/** The server refused before starting a job, so creating again cannot pay twice. */
function isRefusal(error: unknown): boolean {
  return isRetryable('create', error);
}

function abortError(error: unknown, signal: AbortSignal): APIUserAbortError {
  return error instanceof APIUserAbortError ? error : new APIUserAbortError(BATCH_ABORTED, { cause: signal.reason });
}

async function sizeIs(path: string, bytes: number | undefined): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true && info.size === bytes;
}
