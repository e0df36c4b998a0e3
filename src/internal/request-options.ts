import type { ErrorAdvice } from './api-error.js';
import type { RequestBody } from './http-client.js';
import type { RequestKind } from './retry.js';

/** Options every request method accepts; each overrides the client option of the same name. */
export interface RequestOptions {
  /**
   * Milliseconds one attempt may take, including a response body that stalls after its headers.
   * For streamed downloads it bounds the wait for headers and each silent gap in the body.
   * @default 60000
   */
  timeout?: number | undefined;
  /**
   * Retries after the first attempt, for failures that are safe to repeat (see the README's retry table).
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Longest wait between retries the caller accepts. A `Retry-After` beyond it fails at once, with
   * `RateLimitError.retryAfter` set, instead of sleeping.
   * @default 60000
   */
  maxRetryDelay?: number | undefined;
  /**
   * Cancels the request (and any retry wait); rejects with `APIUserAbortError`. A create's upload is cancelled only
   * while it is being sent: once it has left, the service may be making a paid job, so its answer is awaited.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /** Extra headers. Credential headers cannot be set here: the key comes from the client. @default {} */
  headers?: Record<string, string> | undefined;
}

/** @internal A request as the resources describe it; the transport adds auth, retries and parsing. */
export interface APIRequest {
  method: 'GET' | 'POST';
  path: string;
  /** The path as a template for traces (`v1/videos/{id}`) when it holds ids; else `path` is one. */
  route?: string | undefined;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  /** Builds a fresh body for each attempt (an upload stream can only be read once). */
  body?: () => Promise<{ stream: RequestBody; headers: Record<string, string> }>;
  kind: RequestKind;
  /** What this endpoint adds to an error's message (the API's own terms), if anything. */
  advice?: ErrorAdvice | undefined;
}
