import { currentScope, inScope, requestsTraced, traced, tracingChannel } from '../internal/tracing.js';

// The video operations traced around requests: a job, a download, a batch item (the request channel itself is
// internal/tracing.ts's). Payloads hold counts and ids only; with nobody subscribed, nothing is built or published.

/**
 * `avatar-video:job`: one `createAndWait`, `generate` or single-job batch item, from the create (or the job taken up)
 * to its end (and save).
 */
export interface JobTrace {
  operation: 'createAndWait' | 'generate' | 'batch-item';
  /** The job's id, once created (the last one, when a job had to be made again). */
  videoId?: string | undefined;
  /** The job's final status: COMPLETE, FAILED or CANCELLED; undefined when the call stopped otherwise. */
  outcome?: string | undefined;
  /** GETs of the job's status (a poll's retries not counted). */
  polls: number;
  /** The client's limit on jobs running at once when the job began; undefined for `jobLimit: 'external'`. */
  jobLimit?: number | undefined;
}

/** `avatar-video:download`: one `videos.download` (also the save of a `generate`). */
export interface DownloadTrace {
  videoId: string;
  /** Bytes saved, once complete. */
  bytes?: number | undefined;
  /** Transfers resumed at a byte offset after a dropped body. */
  resumes: number;
  /** Transfers started over from byte 0. */
  restarts: number;
  job?: JobTrace | undefined;
}

/** `avatar-video:batch-item`: one item of `generateBatch`, from its start to saved, failed or skipped. */
export interface BatchItemTrace {
  key: string;
  status?: 'complete' | 'failed' | 'skipped' | undefined;
  videoId?: string | undefined;
}

const channels = {
  job: tracingChannel<JobTrace>('avatar-video:job'),
  download: tracingChannel<DownloadTrace>('avatar-video:download'),
  batchItem: tracingChannel<BatchItemTrace>('avatar-video:batch-item'),
};

/** The job traced around the current call: only traceJob puts an operation in scope. */
const currentJob = () => currentScope() as JobTrace | undefined;

/** Run `call` as the job `trace`: traced when someone listens to jobs, requests or downloads, else as it is. */
export function traceJob<T>(trace: () => JobTrace, call: (job: JobTrace | undefined) => Promise<T>): Promise<T> {
  if (!channels.job.hasSubscribers && !requestsTraced() && !channels.download.hasSubscribers) return call(undefined);
  const job = trace();
  return inScope(job, () => traced(channels.job, job, () => call(job)));
}

/** Count a poll (one status GET, its retries apart) for the job traced around the current call, if any. */
export function countPoll(): void {
  const job = currentJob();
  if (job) job.polls++;
}

/** Run a download traced when subscribed; `call` fills in the payload's counts. */
export function traceDownload<T>(videoId: string, call: (trace: DownloadTrace) => Promise<T>): Promise<T> {
  const trace: DownloadTrace = { videoId, resumes: 0, restarts: 0 };
  if (!channels.download.hasSubscribers) return call(trace);
  trace.job = currentJob();
  return traced(channels.download, trace, () => call(trace));
}

/** Run one batch item traced when subscribed; its result fills in the payload. */
export function traceBatchItem<T extends { status: BatchItemTrace['status']; videoId?: string | undefined }>(
  key: string,
  call: () => Promise<T>,
): Promise<T> {
  if (!channels.batchItem.hasSubscribers) return call();
  const trace: BatchItemTrace = { key };
  return traced(channels.batchItem, trace, async () => {
    const result = await call();
    trace.status = result.status;
    trace.videoId = result.videoId;
    return result;
  });
}
