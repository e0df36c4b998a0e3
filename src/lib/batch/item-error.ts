import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  SegmentFailedError,
  VideoCancelledError,
  VideoFailedError,
  WaitTimeoutError,
} from '../../errors.js';
import { abortError } from '../../internal/abort.js';
import { isNeverRetried, unsent } from '../../internal/retry.js';
import type { BatchItemError, BatchItemResult } from './types.js';

/** What a batch's abort error says was aborted (`abortError`'s `what`). */
export const BATCH = 'The batch';

/** The error a batch stopped by its signal rejects with: the abort error itself, or one that says so. */
export function batchAborted(error: unknown, signal: AbortSignal): APIUserAbortError {
  return error instanceof APIUserAbortError ? error : abortError(signal, BATCH);
}

/** The result of an item that failed, naming the job it made, if any. */
export function failed(key: string, jobId: string | undefined, error: unknown, attempts?: number): BatchItemResult {
  return { key, status: 'failed', ...(jobId ? { videoId: jobId } : {}), error: describeItemError(error, jobId, attempts) };
}

/** A failure as a code and a message; a job that may still be usable is named, with how to go on. */
export function describeItemError(error: unknown, jobId: string | undefined, attempts?: number): BatchItemError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof VideoFailedError) {
    const tries = attempts && attempts > 1 ? ` (${attempts} jobs tried)` : '';
    return { code: error.code ?? 'failed', message: `${message}${tries}` };
  }
  if (error instanceof VideoCancelledError) return { code: 'cancelled', message };
  // A long item's segment: its message names the segment, its last job and how to resume.
  if (error instanceof SegmentFailedError) return { code: error.code ?? 'failed', message };
  const resume = jobId
    ? ` Job ${jobId} was created and paid for: run the batch again over the same folder to resume it.`
    : error instanceof APIConnectionError
      ? connectionAdvice(error)
      : '';
  if (error instanceof WaitTimeoutError) return { code: 'wait_timeout', message: `${message}${resume}` };
  if (error instanceof APIError) return { code: error.code ?? `http_${error.status}`, message: `${message}${resume}` };
  // What kind of connection failure (`tls_certificate`, `proxy_auth`, `timeout`...), not the class every kind shares.
  if (error instanceof APIConnectionError) return { code: error.code, message: `${message}${resume}` };
  return { code: error instanceof Error ? error.name : 'error', message: `${message}${resume}` };
}

/** What a create's connection failure left on the service: nothing when no connection opened or none can be made. */
function connectionAdvice(error: APIConnectionError): string {
  if (isNeverRetried(error.code)) return ' Nothing reached the service: once that is fixed, a rerun over the same folder makes the item.';
  // Refused, no DNS answer, no route: the connection never opened, so no byte of the create left.
  if (unsent.has(error))
    return ' Nothing was sent (no connection opened): once the service is reachable, a rerun over the same folder makes the item.';
  return ' The create may have reached the service before the connection failed: a rerun creates the item again.';
}
