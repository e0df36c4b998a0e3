import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../errors.js';
import { header, type RawHeaders } from './headers.js';
import { scrub } from './redact.js';
import { markUnsent } from './retry.js';

/**
 * The low-level HTTP exchange under the Transport: one request on undici with a timeout and the caller's
 * signal, a bounded body read, and failures mapped to the SDK's connection errors (the key scrubbed).
 */

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
  headers: RawHeaders;
  body: Dispatcher.ResponseData['body'];
  url: URL;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

class TimeoutReason extends Error {}

/**
 * One request in flight: its abort switch, its timer and its link to the caller's signal. undici takes an
 * EventEmitter as `signal` (documented); an AbortController here cost about 12 µs per loopback request in
 * listener bookkeeping, a fifth of the request (bench/poll.ts).
 */
class Exchange extends EventEmitter {
  aborted = false;
  reason: unknown;
  timedOut = false;
  readonly signal: AbortSignal | undefined;
  readonly #secret: string;
  readonly #timer: NodeJS.Timeout;
  readonly #onAbort = () => this.abort(this.signal?.reason);

  constructor(signal: AbortSignal | undefined, timeout: number, secret: string) {
    super();
    this.signal = signal;
    this.#secret = secret;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new TimeoutReason(`timed out after ${timeout} ms`));
    }, timeout);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  /** Stop the whole-exchange timer (a streamed body is bounded by undici's idle timeout instead). */
  stopTimer(): void {
    clearTimeout(this.#timer);
  }

  done(): void {
    clearTimeout(this.#timer);
    this.signal?.removeEventListener('abort', this.#onAbort);
  }

  fail(error: unknown): Error {
    return toConnectionError(error, this.signal, this.timedOut, this.#secret);
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

/** Map a thrown transport failure to one of the SDK's connection errors, keeping it as `cause`. */
function toConnectionError(error: unknown, signal: AbortSignal | undefined, timedOut: boolean, secret?: string): Error {
  if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return error;
  if (signal?.aborted) return new APIUserAbortError('Request was aborted.', { cause: signal.reason });
  const code = errorCode(error);
  const detail = scrub(error instanceof Error ? error.message : String(error), secret);
  const result =
    timedOut || (code && TIMEOUT_CODES.has(code))
      ? new APIConnectionTimeoutError(`Request timed out (${detail}).`, { cause: error })
      : new APIConnectionError(`Connection error: ${detail}${code ? ` (${code})` : ''}.`, { cause: error });
  if (code && NOT_SENT_CODES.has(code)) markUnsent(result);
  return result;
}

/** An answer whose body is still to be read: the caller reads it (or releases it), then calls `done()`. */
export class SentResponse implements RawResponse {
  readonly status: number;
  readonly headers: RawHeaders;
  readonly body: Dispatcher.ResponseData['body'];
  readonly url: URL;
  readonly #exchange: Exchange;

  constructor(response: Dispatcher.ResponseData, url: URL, exchange: Exchange) {
    this.status = response.statusCode;
    this.headers = response.headers;
    this.body = response.body;
    this.url = url;
    this.#exchange = exchange;
  }

  /** Release the timer and the signal link; call once the body is consumed or abandoned. */
  done(): void {
    this.#exchange.done();
  }

  /** The SDK error for a failure while reading the body (a stall, an abort, a dropped connection). */
  fail(error: unknown): Error {
    return this.#exchange.fail(error);
  }

  /** Drop the body unread, closing its connection (a dump could wait on a stalled body). */
  release(): void {
    // undici reports the destroy as an 'error' event; nobody else listens any more.
    this.body.on('error', () => {});
    this.body.destroy();
    this.done();
  }
}

/**
 * Send one request. Unless `stream` is set, the timeout covers the whole exchange including the body, so a body
 * that stalls after the headers still times out; the caller reads the body before calling `done()`.
 */
export async function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  const exchange = new Exchange(attempt.signal, attempt.timeout, secret);
  if (attempt.signal?.aborted) {
    exchange.done();
    throw new APIUserAbortError('Request was aborted.', { cause: attempt.signal.reason });
  }
  try {
    const response = await dispatcher.request({
      origin: attempt.url.origin,
      path: attempt.url.pathname + attempt.url.search,
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body ?? null,
      signal: exchange,
      headersTimeout: attempt.timeout,
      bodyTimeout: attempt.timeout,
    });
    // A streamed body may legitimately take longer than `timeout` in total; undici's bodyTimeout
    // still catches a stall, and the caller's signal stays linked until done().
    if (attempt.stream) exchange.stopTimer();
    return new SentResponse(response, attempt.url, exchange);
  } catch (error) {
    exchange.done();
    throw exchange.fail(error);
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
export async function readText(response: SentResponse, limit: number): Promise<BodyText> {
  try {
    if (Number(header(response.headers, 'content-length')) > limit) {
      response.release();
      return { text: '', truncated: true };
    }
    return await collect(response, limit);
  } catch (error) {
    throw response.fail(error);
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
      response.release();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated: true });
    });
    body.once('end', () => resolve({ text: Buffer.concat(chunks, size).toString('utf8'), truncated: false }));
    body.once('error', reject);
  });
}
