import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, type ErrorOrigin } from '../errors.js';
import { describeServer, diagnose, proxyOf } from './connection-problem.js';
import { header, type RawHeaders } from './headers.js';
import { scrub } from './redact.js';
import { unsent } from './retry.js';

// One HTTP exchange under the caller's signal and one timer, on undici's public API: `exchange` (a whole JSON answer)
// and `send` (an answer to stream) are the two calls into the HTTP client, where another runtime's fetch would go.

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
  /** Milliseconds a streamed body may send nothing before it is given up (`send`); `timeout` when unset. */
  idleTimeout?: number | undefined;
  /** Which server this is, for errors: the API (the default) or the file host a content redirect led to. */
  site?: ErrorOrigin | undefined;
  signal?: AbortSignal | undefined;
  /** The signal stops the request only until its body is sent whole (a create: the answer may name a paid job). */
  abortsUntilSent?: boolean | undefined;
}

/** A whole answer: the start of its body as text, `truncated` when the rest was dropped with the connection. */
export type BufferedResponse = { status: number; headers: RawHeaders; text: string; truncated: boolean };
/** An answer whose body is still to be read: the caller reads it (or releases it), then calls `done()`. */
export type SentResponse = Pick<Exchange, 'status' | 'headers' | 'body' | 'url' | 'done' | 'fail' | 'release'>;

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

/** undici's options for an attempt: its idle timeouts (headers, body) are the attempt's timeout too. */
function options({ origin, path, method, headers, body, timeout, idleTimeout }: Attempt) {
  return { origin, path, method, headers, body: body ?? null, headersTimeout: timeout, bodyTimeout: idleTimeout ?? timeout };
}

/** One request under its timer and the caller's signal, then its answer. */
class Exchange {
  reason: Error | undefined;
  status = 0;
  headers: RawHeaders = {};
  body!: Readable;
  readonly #attempt: Attempt;
  readonly #dispatcher: Dispatcher;
  readonly #secret: string;
  readonly #timer: NodeJS.Timeout;
  readonly #onAbort: (() => void) | undefined;
  /** What a stop does: stop the request in undici, fail the call waiting on it. */
  readonly #onStop: (reason: Error) => void;
  #timedOut = false;
  /** The body was sent whole, and the signal no longer stops this request (`abortsUntilSent`). */
  #committed = false;
  #settled = false;

  constructor(attempt: Attempt, dispatcher: Dispatcher, secret: string, onStop: (reason: Error) => void) {
    this.#attempt = attempt;
    this.#dispatcher = dispatcher;
    this.#secret = secret;
    this.#onStop = onStop;
    const { signal, timeout } = attempt;
    if (signal) {
      this.#onAbort = () => this.#committed || this.stop(signal.reason);
      signal.addEventListener('abort', this.#onAbort, { once: true });
      if (attempt.abortsUntilSent) attempt.body?.once('end', () => (this.#committed = true));
    }
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.stop(new Error(`timed out after ${timeout} ms`));
    }, timeout);
  }

  /** Stop the request, for a timeout or the caller's signal: `onStop` stops it in undici and fails the call. */
  stop(reason: unknown): void {
    if (this.reason) return;
    this.reason = reason instanceof Error ? reason : new Error(String(reason));
    this.#onStop(this.reason);
  }

  /** True the first time only: the call is answered (or failed) now. */
  settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    return true;
  }

  /** Where the answer came from. */
  get url(): URL {
    return new URL(this.#attempt.path, this.#attempt.origin);
  }

  /** The timeout now bounds only the wait for each chunk of the body (undici's own idle timeout). */
  headsOnly(): void {
    clearTimeout(this.#timer);
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
    const result = this.#connectionError(error, code);
    if (code && NOT_SENT.has(code)) unsent.add(result);
    return result;
  }

  /** The typed connection error: its kind (a certificate, a proxy...), where it happened and why. */
  #connectionError(error: unknown, code: string | undefined): APIConnectionError {
    const target = new URL(this.#attempt.origin);
    const where = { origin: this.#attempt.site ?? 'api', host: target.host, cause: error } as const;
    const known = diagnose(error, { ...where, proxy: proxyOf(this.#dispatcher, target) });
    if (known) return new APIConnectionError(scrub(known.message, this.#secret), { ...where, code: known.code });
    const detail = scrub(error instanceof Error ? error.message : String(error), this.#secret);
    const at = where.origin === 'file-host' ? ` at ${describeServer(where.origin, where.host)}` : '';
    if (code === 'UND_ERR_BODY_TIMEOUT' && !this.#timedOut) {
      const idle = this.#attempt.idleTimeout ?? this.#attempt.timeout;
      return new APIConnectionTimeoutError(`The answer's body stalled${at}: no data for ${idle} ms.`, where);
    }
    if (this.#timedOut || (code && TIMED_OUT.has(code))) return new APIConnectionTimeoutError(`Request timed out${at} (${detail}).`, where);
    return new APIConnectionError(`Connection error${at}: ${detail}${code ? ` (${code})` : ''}.`, where);
  }
}

/** Send one request whose body the caller streams; the timeout bounds the headers, then each idle gap in the body. */
export function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  if (attempt.signal?.aborted) return Promise.reject(userAbort(attempt.signal));
  return new Promise((resolve, reject) => {
    // A stop answers at once, even while undici still has the request queued for a connection.
    const fail = (error: Error) => {
      if (!sent.settle()) return;
      sent.done();
      reject(sent.fail(error));
    };
    const abort = new AbortController();
    const sent = new Exchange(attempt, dispatcher, secret, (reason) => {
      abort.abort(reason);
      fail(reason);
    });
    dispatcher.request({ ...options(attempt), signal: abort.signal }, (error, answer) => {
      if (error) return fail(error);
      if (!sent.settle()) return answer.body.on('error', ignore).destroy();
      sent.headsOnly();
      ({ statusCode: sent.status, headers: sent.headers, body: sent.body } = answer);
      resolve(sent);
    });
  });
}

/** The start of a body, at most `limit` bytes: the one bounded reader. */
class Gathered {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(readonly limit: number) {}

  tooLong(headers: RawHeaders): boolean {
    return Number(header(headers, 'content-length')) > this.limit;
  }

  /** Keep what fits of `chunk`; false once some of it did not. */
  add(chunk: Buffer): boolean {
    const room = this.limit - this.#size;
    this.#chunks.push(chunk.length <= room ? chunk : chunk.subarray(0, room));
    this.#size += Math.min(chunk.length, room);
    return chunk.length <= room;
  }

  text(): string {
    return this.#chunks.length === 1 ? String(this.#chunks[0]) : Buffer.concat(this.#chunks, this.#size).toString();
  }
}

/**
 * Send one request and read its whole answer (at most `MAX_JSON_BYTES`, `MAX_ERROR_BYTES` for an error status), the
 * timeout covering both. Through undici's `dispatch` with a handler that gathers the bytes, not `request`: the
 * Readable that `request` builds for a body cost a fifth of a poll's CPU (bench/poll.ts).
 */
export function exchange(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<BufferedResponse> {
  if (attempt.signal?.aborted) return Promise.reject(userAbort(attempt.signal));
  return new Promise((resolve, reject) => {
    let [status, headers, body] = [0, {} as RawHeaders, new Gathered(MAX_JSON_BYTES)];
    let controller: Dispatcher.DispatchController | undefined;
    const fail = (error: Error) => {
      if (!guard.settle()) return;
      guard.done();
      reject(guard.fail(error));
    };
    const guard = new Exchange(attempt, dispatcher, secret, (reason) => {
      controller?.abort(reason);
      fail(reason);
    });
    const end = (truncated: boolean) => {
      if (!guard.settle()) return;
      guard.done();
      resolve({ status, headers, text: body.text(), truncated });
      if (truncated) controller?.abort(new Error('answer too long')); // the rest goes with its connection
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (started) => {
        controller = started;
        if (guard.reason) started.abort(guard.reason);
      },
      onResponseStart: (_controller, code, raw) => {
        if (code < 200) return; // 1xx: the answer is still to come
        [status, headers, body] = [code, raw as RawHeaders, new Gathered(code < 300 ? MAX_JSON_BYTES : MAX_ERROR_BYTES)];
        if (body.tooLong(headers)) end(true);
      },
      onResponseData: (_controller, chunk) => body.add(chunk) || end(true),
      onResponseEnd: () => end(false),
      onResponseError: (_controller, error) => fail(error),
    };
    try {
      dispatcher.dispatch(options(attempt), handler);
    } catch (error) {
      fail(error as Error);
    }
  });
}

/**
 * Read a streamed error answer's body as text, at most `MAX_ERROR_BYTES`, then the connection is dropped. Events,
 * not `for await`, whose end destroys the body and can cost its keep-alive connection.
 */
export function readErrorText(response: SentResponse): Promise<string> {
  const gathered = new Gathered(MAX_ERROR_BYTES);
  let settled = false;
  return new Promise<string>((resolve, reject) => {
    const finish = (error: unknown, truncated: boolean) => {
      if (settled) return;
      settled = true;
      response.done();
      if (truncated) response.release();
      error ? reject(response.fail(error)) : resolve(gathered.text());
    };
    if (gathered.tooLong(response.headers)) return finish(undefined, true);
    response.body.on('data', (chunk: Buffer) => gathered.add(chunk) || finish(undefined, true));
    response.body.once('end', () => finish(undefined, false));
    response.body.once('error', (error) => finish(error, false));
  });
}
