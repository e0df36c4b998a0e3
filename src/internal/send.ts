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
  /** `https://host:port`. */
  origin: string;
  /** Path and query, from the root: `/v1/videos/vid_1`. */
  path: string;
  method: 'GET' | 'POST' | 'HEAD';
  headers: Record<string, string>;
  body?: Readable | string | undefined;
  /** Milliseconds for the whole attempt (buffered) or for headers and each idle gap in the body (streamed). */
  timeout: number;
  signal?: AbortSignal | undefined;
  /** The body will be streamed by the caller: after the headers, only idle gaps count against `timeout`. */
  stream?: boolean;
}

/** An answer whose body is still to be read: the caller reads it (or releases it), then calls `done()`. */
export interface SentResponse {
  readonly status: number;
  readonly headers: RawHeaders;
  readonly body: Dispatcher.ResponseData['body'];
  /** Where the answer came from. */
  readonly url: URL;
  /** Release the deadline and the signal link; call once the body is consumed or abandoned. */
  done(): void;
  /** The SDK error for a failure while reading the body (a stall, an abort, a dropped connection). */
  fail(error: unknown): Error;
  /** Drop the body unread, closing its connection (a dump could wait on a stalled body). */
  release(): void;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

class TimeoutReason extends Error {}

/**
 * One request in flight, then its answer: the abort switch undici takes as `signal`, the deadline, the link to
 * the caller's signal. An EventEmitter as the switch (undici documents it): an AbortController here cost about
 * 12 µs per loopback request in listener bookkeeping (bench/poll.ts).
 */
class Exchange extends EventEmitter implements SentResponse {
  aborted = false;
  reason: unknown;
  timedOut = false;
  status = 0;
  headers: RawHeaders = {};
  body!: Dispatcher.ResponseData['body'];
  readonly deadline: number;
  readonly #attempt: Attempt;
  readonly #secret: string;
  #url: URL | undefined;
  readonly #onAbort = () => this.abort(this.#attempt.signal?.reason);

  constructor(attempt: Attempt, secret: string) {
    super();
    this.#attempt = attempt;
    this.#secret = secret;
    attempt.signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.deadline = performance.now() + attempt.timeout;
    watch(this);
  }

  get url(): URL {
    this.#url ??= new URL(this.#attempt.path, this.#attempt.origin);
    return this.#url;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  /** The deadline passed. */
  expire(): void {
    this.timedOut = true;
    this.abort(new TimeoutReason(`timed out after ${this.#attempt.timeout} ms`));
  }

  done(): void {
    inFlight.delete(this);
    this.#attempt.signal?.removeEventListener('abort', this.#onAbort);
  }

  fail(error: unknown): Error {
    return toConnectionError(error, this.#attempt.signal, this.timedOut, this.#secret);
  }

  release(): void {
    // undici reports the destroy as an 'error' event; nobody else listens any more.
    this.body.on('error', () => {});
    this.body.destroy();
    this.done();
  }
}

/**
 * The deadlines of the exchanges in flight, kept by one unref'd timer set for the earliest. A Node timer per
 * request, created and cleared each time, cost about a twentieth of a poll's CPU (bench/poll.ts). An exchange
 * that ends only leaves the set; the timer, when it fires, expires what is due and sets itself for the next.
 */
const inFlight = new Set<Exchange>();
let timer: NodeJS.Timeout | undefined;
let timerAt = Number.POSITIVE_INFINITY;

function watch(exchange: Exchange): void {
  inFlight.add(exchange);
  if (exchange.deadline < timerAt) setTimer(exchange.deadline);
}

function setTimer(at: number): void {
  clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(expireDue, Math.max(0, at - performance.now())).unref();
}

function expireDue(): void {
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  for (const exchange of inFlight) {
    if (exchange.deadline > now) next = Math.min(next, exchange.deadline);
    else {
      inFlight.delete(exchange);
      exchange.expire();
    }
  }
  timerAt = Number.POSITIVE_INFINITY;
  if (next !== Number.POSITIVE_INFINITY) setTimer(next);
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

/**
 * Send one request. Unless `stream` is set, the timeout covers the whole exchange including the body, so a body
 * that stalls after the headers still times out; the caller reads the body before calling `done()`.
 */
export async function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  if (attempt.signal?.aborted) throw new APIUserAbortError('Request was aborted.', { cause: attempt.signal.reason });
  const exchange = new Exchange(attempt, secret);
  try {
    const response = await dispatcher.request({
      origin: attempt.origin,
      path: attempt.path,
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body ?? null,
      signal: exchange,
      headersTimeout: attempt.timeout,
      bodyTimeout: attempt.timeout,
    });
    // A streamed body may legitimately take longer than `timeout` in total; undici's bodyTimeout
    // still catches a stall, and the caller's signal stays linked until done().
    if (attempt.stream) inFlight.delete(exchange);
    exchange.status = response.statusCode;
    exchange.headers = response.headers;
    exchange.body = response.body;
    return exchange;
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
