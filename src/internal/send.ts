import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../errors.js';
import { header, type RawHeaders } from './headers.js';
import { scrub } from './redact.js';
import { unsent } from './retry.js';

// One HTTP exchange under the caller's signal and one timer, on undici's public `request`: `request` below is the one
// call into the HTTP client, where another runtime's fetch would go. Callbacks inside rather than async functions:
// each promise more that a poll awaits costs it about 3% (bench/poll.ts).

/** One HTTP exchange, before retries. */
export interface Attempt {
  /** `https://host:port`, and the path with its query. */
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Readable | undefined;
  /** Milliseconds for the whole exchange (`exchange`), or until the headers, then each idle gap in the body (`send`). */
  timeout: number;
  signal?: AbortSignal | undefined;
  /** The signal stops the request only until its body is sent whole (a create: the answer may name a paid job). */
  abortsUntilSent?: boolean | undefined;
}

/** A whole answer: the start of its body as text, `truncated` when the rest was dropped with the connection. */
export type BufferedResponse = { status: number; headers: RawHeaders; text: string; truncated: boolean };
/** An answer whose body is still to be read: the caller reads it (or releases it), then calls `done()`. */
export type SentResponse = Pick<Exchange, 'status' | 'headers' | 'body' | 'url' | 'done' | 'fail' | 'release'>;
type Callback<T> = (error: Error | undefined, value: T) => void;

/** Most bytes read of a JSON answer (a video or a page of them is a few KiB), and of an error answer. */
export const MAX_JSON_BYTES = 8 << 20;
const MAX_ERROR_BYTES = 64 << 10;
/** Failures before any byte of the request left: a create may be repeated. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMED_OUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const ignore = () => {};
const userAbort = (signal: AbortSignal) => new APIUserAbortError('Request was aborted.', { cause: signal.reason });

/** The error code of a failure or of its causes (undici wraps socket errors). */
function errorCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; depth < 4 && cause && typeof cause === 'object'; depth++) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return (error as { code?: string } | undefined)?.code;
}

/**
 * One request and its answer. It is itself the `signal` undici takes (an EventEmitter, as undici allows): an
 * AbortSignal's listeners cost a tenth of a poll on Node 20 (bench/poll.ts).
 */
class Exchange extends EventEmitter {
  aborted = false;
  reason: unknown;
  status = 0;
  headers: RawHeaders = {};
  body!: Readable;
  readonly #attempt: Attempt;
  readonly #secret: string;
  readonly #timer: NodeJS.Timeout;
  readonly #onAbort: (() => void) | undefined;
  #timedOut = false;
  /** The body was sent whole, and the signal no longer stops this request (`abortsUntilSent`). */
  #committed = false;
  /** Told of the answer's head or of the failure before it, once: at a stop, even while undici has it queued. */
  #onHead: Callback<Exchange> | undefined;

  constructor(dispatcher: Dispatcher, attempt: Attempt, secret: string, whole: boolean, onHead: Callback<Exchange>) {
    super();
    this.#attempt = attempt;
    this.#secret = secret;
    this.#onHead = onHead;
    const { signal, timeout } = attempt;
    if (signal) {
      this.#onAbort = () => this.#committed || this.#stop(signal.reason);
      signal.addEventListener('abort', this.#onAbort, { once: true });
      if (attempt.abortsUntilSent) attempt.body?.once('end', () => (this.#committed = true));
    }
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#stop(new Error(`timed out after ${timeout} ms`));
    }, timeout);
    request(dispatcher, attempt, this, (error, answer) => {
      if (!error && !whole) clearTimeout(this.#timer);
      if (answer) ({ statusCode: this.status, headers: this.headers, body: this.body } = answer);
      this.#head(error);
    });
  }

  #head(error: Error | undefined): void {
    const onHead = this.#onHead;
    if (!onHead) return;
    this.#onHead = undefined;
    if (error) this.done();
    onHead(error && this.fail(error), this);
  }

  #stop(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
    this.#head(reason);
  }

  /** Where the answer came from. */
  get url(): URL {
    return new URL(this.#attempt.path, this.#attempt.origin);
  }

  /** Let go of the timer and the signal; for a streamed answer, once its body is consumed or abandoned. */
  done(): void {
    clearTimeout(this.#timer);
    if (this.#onAbort) this.#attempt.signal?.removeEventListener('abort', this.#onAbort);
  }

  /** Drop the body unread, closing its connection (a dump could wait on a stalled body). */
  release(): void {
    this.body.on('error', ignore).destroy(); // undici reports the destroy as an 'error'
    this.done();
  }

  /** The SDK connection error for a failure, also of the body (a stall, an abort), the key scrubbed from it. */
  fail(error: unknown): Error {
    const { signal } = this.#attempt;
    if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return error;
    if (signal?.aborted && !this.#committed) return userAbort(signal);
    const code = errorCode(error);
    const detail = scrub(error instanceof Error ? error.message : String(error), this.#secret);
    const result =
      this.#timedOut || (code && TIMED_OUT.has(code))
        ? new APIConnectionTimeoutError(`Request timed out (${detail}).`, { cause: error })
        : new APIConnectionError(`Connection error: ${detail}${code ? ` (${code})` : ''}.`, { cause: error });
    if (code && NOT_SENT.has(code)) unsent.add(result);
    return result;
  }
}

/** The one call into the HTTP client: undici's public `request`, which `signal` stops. */
function request(dispatcher: Dispatcher, attempt: Attempt, signal: EventEmitter, then: Callback<Dispatcher.ResponseData | undefined>) {
  const { origin, path, method, headers, body, timeout } = attempt;
  const options = { origin, path, method, headers, body: body ?? null, signal, headersTimeout: timeout, bodyTimeout: timeout };
  dispatcher.request(options, (error, answer) => then(error ?? undefined, answer));
}

/** Send a request and call back with its answer's head; with `whole` the timeout covers the body too. */
function open(dispatcher: Dispatcher, attempt: Attempt, secret: string, whole: boolean, onHead: Callback<Exchange>): void {
  if (attempt.signal?.aborted) onHead(userAbort(attempt.signal), undefined as never);
  else new Exchange(dispatcher, attempt, secret, whole, onHead);
}

/** Send one request whose body the caller streams; the timeout bounds the headers, then each idle gap in the body. */
export function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  return new Promise((resolve, reject) =>
    open(dispatcher, attempt, secret, false, (error, sent) => (error ? reject(error) : resolve(sent))),
  );
}

/** Send one request and read its whole answer (at most `MAX_JSON_BYTES`, `MAX_ERROR_BYTES` for an error status). */
export function exchange(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<BufferedResponse> {
  return new Promise((resolve, reject) =>
    open(dispatcher, attempt, secret, true, (error, response) => {
      if (error) return reject(error);
      const { status, headers } = response;
      readBody(response, status < 300 ? MAX_JSON_BYTES : MAX_ERROR_BYTES, (failure, text, truncated) =>
        failure ? reject(failure) : resolve({ status, headers, text, truncated }),
      );
    }),
  );
}

/** Read a streamed error answer's body as text, at most `MAX_ERROR_BYTES`. */
export function readErrorText(response: SentResponse): Promise<string> {
  return new Promise((resolve, reject) => readBody(response, MAX_ERROR_BYTES, (error, text) => (error ? reject(error) : resolve(text))));
}

/**
 * The one body reader: at most `limit` bytes, then the connection is dropped (a hostile server may never stop).
 * Events, not `for await`, whose end destroys the body and can cost its keep-alive connection. Calls `done()`.
 */
function readBody(response: SentResponse, limit: number, then: (error: Error | undefined, text: string, truncated: boolean) => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = (error: unknown, truncated: boolean) => {
    if (settled) return;
    settled = true;
    response.done();
    const text = chunks.length === 1 ? String(chunks[0]) : Buffer.concat(chunks, size).toString();
    then(error ? response.fail(error) : undefined, text, truncated);
    if (truncated) response.release();
  };
  if (Number(header(response.headers, 'content-length')) > limit) return finish(undefined, true);
  const { body } = response;
  body.on('data', (chunk: Buffer) => {
    const room = limit - size;
    chunks.push(chunk.length <= room ? chunk : chunk.subarray(0, room));
    size += Math.min(chunk.length, room);
    if (chunk.length > room) finish(undefined, true);
  });
  body.once('end', () => finish(undefined, false));
  body.once('error', (error) => finish(error, false));
  body.read(0); // reading starts now: the chunks come as 'data' at once, not through the stream's buffer a tick later
}
