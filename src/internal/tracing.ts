import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics_channel from 'node:diagnostics_channel';

// The SDK's tracing channels (node:diagnostics_channel), the one place they are named. Payloads hold no key, no URL
// and no body: method, path template, counts and ids only. With nobody subscribed, nothing is built or published.

/** `avatar-video:request`: one attempt of an API request. */
export interface RequestTrace {
  method: 'GET' | 'POST';
  /** The API path as a template, ids left out: `/v1/videos/{id}`. */
  route: string;
  /** 1 for the first try, 2 for the first retry... */
  attempt: number;
  /** The HTTP status, once answered (undefined when the connection failed). */
  status?: number | undefined;
  /** The server's `x-request-id`, once answered. */
  requestId?: string | undefined;
  /** The job this request belongs to (`createAndWait`, `generate`, a batch item), when one is traced. */
  job?: JobTrace | undefined;
}

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

export const channels = {
  request: diagnostics_channel.tracingChannel<string, RequestTrace>('avatar-video:request'),
  job: diagnostics_channel.tracingChannel<string, JobTrace>('avatar-video:job'),
  download: diagnostics_channel.tracingChannel<string, DownloadTrace>('avatar-video:download'),
  batchItem: diagnostics_channel.tracingChannel<string, BatchItemTrace>('avatar-video:batch-item'),
};

/**
 * `call` traced on `channel` with `trace` as the payload. Its result stays out of the payload (diagnostics_channel
 * would add it as `result`): an answer may hold addresses, and the payload holds only what is documented.
 */
async function traced<T, P extends object>(
  channel: diagnostics_channel.TracingChannel<string, P>,
  trace: P,
  call: () => Promise<T>,
): Promise<T> {
  let result: T | undefined;
  await channel.tracePromise(async () => {
    result = await call();
  }, trace);
  return result as T;
}

/** The job traced around the current call, for its requests and download to point at (and its polls to be counted). */
const currentJob = new AsyncLocalStorage<JobTrace>();

/** Run `call` as the job `trace`: traced when someone listens to jobs, requests or downloads, else as it is. */
export function traceJob<T>(trace: () => JobTrace, call: (job: JobTrace | undefined) => Promise<T>): Promise<T> {
  if (!channels.job.hasSubscribers && !channels.request.hasSubscribers && !channels.download.hasSubscribers) return call(undefined);
  const job = trace();
  return currentJob.run(job, () => traced(channels.job, job, () => call(job)));
}

/** Run one attempt of an API request, traced when subscribed; a poll counts for the job around it. */
export function traceRequest<T extends { status: number; headers: unknown }>(
  method: RequestTrace['method'],
  route: string,
  attempt: number,
  call: () => Promise<T>,
  answered: (headers: T['headers']) => string | undefined,
): Promise<T> {
  const job = currentJob.getStore();
  if (job && attempt === 1 && method === 'GET' && route === VIDEO_ROUTE) job.polls++;
  if (!channels.request.hasSubscribers) return call();
  const trace: RequestTrace = { method, route, attempt, job };
  return traced(channels.request, trace, async () => {
    try {
      const answer = await call();
      trace.status = answer.status;
      trace.requestId = answered(answer.headers);
      return answer;
    } catch (error) {
      const { status, requestId } = error as { status?: unknown; requestId?: unknown };
      if (typeof status === 'number') trace.status = status;
      if (typeof requestId === 'string') trace.requestId = requestId;
      throw error;
    }
  });
}

/** The route of a job's status GET: what counts as a poll. */
export const VIDEO_ROUTE = '/v1/videos/{id}';

/** Run a download traced when subscribed; `call` fills in the payload's counts. */
export function traceDownload<T>(videoId: string, call: (trace: DownloadTrace) => Promise<T>): Promise<T> {
  const trace: DownloadTrace = { videoId, resumes: 0, restarts: 0 };
  if (!channels.download.hasSubscribers) return call(trace);
  trace.job = currentJob.getStore();
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
