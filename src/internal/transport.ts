import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { APIConnectionError, APIConnectionTimeoutError, type APIError, APIUserAbortError } from '../errors.js';
import { scrub } from './redact.js';
import type { AttemptFailure } from './retry.js';

/** One HTTP exchange, before retries. */
export interface Attempt {
  url: URL;
  method: 'GET' | 'POST' | 'HEAD';
  headers: Record<string, string>;
  body?: Readable | string | undefined;
  /** Milliseconds for the whole attempt (buffered) or for headers and each idle gap in the body (streamed). */
  timeout: number;
  signal?: AbortSignal | undefined;
  /** The body will be streamed by the caller: after the headers, only idle gaps count against `timeout`. */
  stream?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  url: URL;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

class TimeoutReason extends Error {}

/**
 * A per-request abort switch. undici takes an EventEmitter as `signal` (documented); an AbortController
 * here cost about 12 µs per loopback request in listener bookkeeping, a fifth of the request (bench/poll.ts).
 */
class AbortSwitch extends EventEmitter {
  aborted = false;
  reason: unknown;
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** The error code of a failure or of its causes (undici wraps socket errors). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (error as { code?: string } | undefined)?.code;
}

const notSent = new WeakSet<object>();

/** Map a thrown transport failure to one of the SDK's connection errors, keeping it as `cause`. */
export function toConnectionError(error: unknown, signal: AbortSignal | undefined, timedOut: boolean, secret?: string): Error {
  if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return error;
  if (signal?.aborted) return new APIUserAbortError('Request was aborted.', { cause: signal.reason });
  const code = errorCode(error);
  const detail = scrub(error instanceof Error ? error.message : String(error), secret);
  const result =
    timedOut || (code && TIMEOUT_CODES.has(code))
      ? new APIConnectionTimeoutError(`Request timed out (${detail}).`, { cause: error })
      : new APIConnectionError(`Connection error: ${detail}${code ? ` (${code})` : ''}.`, { cause: error });
  if (code && NOT_SENT_CODES.has(code)) notSent.add(result);
  return result;
}

/** Reduce an error to what the retry policy needs. */
export function describeFailure(error: unknown): AttemptFailure {
  if (error instanceof APIUserAbortError) return { kind: 'abort' };
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout', sent: !notSent.has(error) };
  if (error instanceof APIConnectionError) return { kind: 'connection', sent: !notSent.has(error) };
  const status = (error as APIError | undefined)?.status;
  if (typeof status === 'number') return { kind: 'status', status };
  return { kind: 'abort' };
}

/**
 * Send one request. With `buffered`, the timeout covers the whole exchange including the body, so a body
 * that stalls after the headers still times out; the caller reads the body before calling `done()`.
 */
export type SentResponse = RawResponse & {
  /** Release the timer and the signal link; call once the body is consumed or abandoned. */
  done(): void;
  timedOut(): boolean;
};

export async function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  const controller = new AbortSwitch();
  let timedOut = false;
  const onAbort = () => controller.abort(attempt.signal?.reason);
  attempt.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new TimeoutReason(`timed out after ${attempt.timeout} ms`));
  }, attempt.timeout);
  const done = () => {
    clearTimeout(timer);
    attempt.signal?.removeEventListener('abort', onAbort);
  };
  if (attempt.signal?.aborted) {
    done();
    throw new APIUserAbortError('Request was aborted.', { cause: attempt.signal.reason });
  }
  try {
    const response = await dispatcher.request({
      origin: attempt.url.origin,
      path: attempt.url.pathname + attempt.url.search,
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body ?? null,
      signal: controller,
      headersTimeout: attempt.timeout,
      bodyTimeout: attempt.timeout,
    });
    // A streamed body may legitimately take longer than `timeout` in total; undici's bodyTimeout
    // still catches a stall, and the caller's signal stays linked until done().
    if (attempt.stream) clearTimeout(timer);
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
      url: attempt.url,
      done,
      timedOut: () => timedOut,
    };
  } catch (error) {
    done();
    throw toConnectionError(error, attempt.signal, timedOut, secret);
  }
}

/** Most bytes read of a JSON answer: a video object or a page of them is a few KiB. */
export const MAX_JSON_BYTES = 8 << 20;
/** Most bytes read of an error answer; the rest is dropped with the connection. */
export const MAX_ERROR_BYTES = 64 << 10;

export interface BodyText {
  text: string;
  /** The body was longer than the limit: `text` holds its start and the connection was dropped. */
  truncated: boolean;
}

/**
 * Read a small response body as text, at most `limit` bytes (a hostile or broken server may send
 * hundreds of MiB, or never stop), mapping stalls and aborts to SDK errors.
 */
export async function readText(response: SentResponse, signal: AbortSignal | undefined, secret: string, limit: number): Promise<BodyText> {
  try {
    if (Number(header(response.headers, 'content-length')) > limit) {
      release(response);
      return { text: '', truncated: true };
    }
    return await collect(response, limit);
  } catch (error) {
    throw toConnectionError(error, signal, response.timedOut(), secret);
  } finally {
    response.done();
  }
}

/**
 * Gather a body up to `limit` bytes. Events rather than `for await`: the async iterator destroys the body
 * when it finishes, which can cost the keep-alive connection it came on.
 */
function collect(response: SentResponse, limit: number): Promise<BodyText> {
  const { body } = response;
  return new Promise<BodyText>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      if (size + chunk.length <= limit) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, limit - size));
      release(response);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated: true });
    });
    body.once('end', () => resolve({ text: Buffer.concat(chunks, size).toString('utf8'), truncated: false }));
    body.once('error', reject);
  });
}

/** Drop a response's body unread, closing its connection (a dump could wait on a stalled body). */
export function release(response: SentResponse): void {
  // undici reports the destroy as an 'error' event; nobody else listens any more.
  response.body.on('error', () => {});
  response.body.destroy();
  response.done();
}

export function requestId(headers: RawResponse['headers']): string | undefined {
  return header(headers, 'x-request-id') ?? header(headers, 'request-id');
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
