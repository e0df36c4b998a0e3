import { join } from 'node:path';
import { VideoCancelledError, VideoFailedError } from '../../errors.js';
import { isSavedWhole } from '../../internal/atomic-file.js';
import type { Video } from '../../schemas.js';
import { downloadVideo } from '../download.js';
import { type JobPlan, runJob } from '../job-runner.js';
import { type JobTrace, traceBatchItem, traceJob } from '../tracing.js';
import type { CheckedItem } from './check.js';
import type { ItemContext } from './context.js';
import { BATCH, batchAborted, failed } from './item-error.js';
import type { LedgerRecord } from './ledger.js';
import { runLongItem } from './long-item.js';
import type { BatchItemResult } from './types.js';

/**
 * Take one item to its end: skipped when already saved, made in segments when its audio is longer than one job
 * allows, else one job (resumed or created), waited on and saved.
 */
export function runItem(item: CheckedItem, entry: LedgerRecord | undefined, ctx: ItemContext): Promise<BatchItemResult> {
  return traceBatchItem(item.key, () => runTraced(item, entry, ctx));
}

async function runTraced(item: CheckedItem, entry: LedgerRecord | undefined, ctx: ItemContext): Promise<BatchItemResult> {
  const path = join(ctx.outputDir, `${item.key}.mp4`);
  if (entry?.state === 'saved' && (await isSavedWhole(path, entry.bytes))) {
    const made = entry.segmentIds ? { segmentVideoIds: entry.segmentIds } : { videoId: entry.jobId };
    return { key: item.key, status: 'skipped', ...made, path };
  }
  if (item.long) return runLongItem(item, path, ctx);
  const trace = (): JobTrace => ({ operation: 'batch-item', videoId: resumable(entry), polls: 0, jobLimit: ctx.context.limiter.limit });
  return traceJob(trace, (job) => runOneJob(item, entry, path, ctx, job));
}

/** The job the ledger names for an item, to take up rather than create. */
function resumable(entry: LedgerRecord | undefined): string | undefined {
  return entry?.state === 'created' || entry?.state === 'saved' ? entry.jobId : undefined;
}

/** Make the item with the job runner: the job the ledger names, else a new one, made again as job-policy.ts says. */
async function runOneJob(
  item: CheckedItem,
  entry: LedgerRecord | undefined,
  path: string,
  ctx: ItemContext,
  job: JobTrace | undefined,
): Promise<BatchItemResult> {
  const { key, hash } = item;
  let jobId = resumable(entry);
  let attempts = 0;
  let video: Video;
  try {
    const plan: JobPlan = {
      resume: jobId,
      params: item.params,
      // The signal stops a create while its upload is sent, never once it has left: the service may then have made
      // (and billed) the job, and only its answer puts the id in the ledger.
      creating: () => ctx.ledger.append({ key, hash, state: 'creating' }),
      created: async (created) => {
        jobId = created.id;
        if (job) job.videoId = jobId;
        await ctx.ledger.append({ key, hash, state: 'created', jobId });
      },
      wait: ctx.waitOptions,
      ended: async (id, error) => {
        jobId = undefined;
        const code = error instanceof VideoFailedError ? (error.code ?? 'failed') : 'cancelled';
        await ctx.ledger.append({ key, hash, state: 'failed', jobId: id, code, message: error.message });
        return ++attempts;
      },
    };
    const { api, context, maxJobAttempts, signal, onRunning } = ctx;
    const create = { onUploadProgress: ctx.onUploadProgress };
    video = await runJob(plan, { api, context, maxJobAttempts, create, signal, aborted: BATCH, onRunning });
    if (job) job.outcome = video.status;
  } catch (error) {
    if (ctx.signal?.aborted) throw batchAborted(error, ctx.signal);
    const ended = error instanceof VideoFailedError || error instanceof VideoCancelledError;
    if (job && ended) job.outcome = error.video.status;
    return failed(key, ended ? error.video.id : jobId, error, attempts);
  }
  try {
    const saved = await downloadVideo(ctx.api, ctx.context, video, path, { signal: ctx.signal });
    await ctx.ledger.append({ key, hash, state: 'saved', jobId: video.id, path: saved.path, bytes: saved.bytes });
    return { key, status: 'complete', videoId: video.id, path: saved.path };
  } catch (error) {
    if (ctx.signal?.aborted) throw batchAborted(error, ctx.signal);
    return failed(key, video.id, error);
  }
}
