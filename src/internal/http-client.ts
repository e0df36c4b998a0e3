import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, type ErrorOrigin } from '../errors.js';
import { abortError } from './abort.js';
import { whenAborted } from './abort-listener.js';
import { describeServer, diagnose, NOT_CONNECTED } from './connection-problem.js';
import { header, type RawHeaders } from './headers.js';
import { scrub } from './redact.js';
import { unsent } from './retry.js';

// The one HTTP seam: the port every request of the SDK goes through (`exchange` for a whole JSON answer, `send` for an
// answer to stream), what both implementations share (bounded reads, failure mapping), and nothing of either client.
// Web-pure: no `node:` import, no Buffer, so the web entry can take it as it is.

/** A request body: the bytes as they are to be sent, pulled once (a Node Readable, a web ReadableStream, a generator). */
export type RequestBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** A streamed answer's body: a Node Readable (undici) or a web ReadableStream (fetch). */
export type ResponseBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** The chunks of a body, whichever its kind (a web stream is iterable in Node, Bun and Deno, not in every browser). */
export function chunksOf(body: ResponseBody): AsyncIterable<Uint8Array> {
  return Symbol.asyncIterator in body ? (body as AsyncIterable<Uint8Array>) : readerChunks(body);
}

async function* readerChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** One HTTP exchange, before retries. */
export interface Attempt {
  /** `https://host:port`, and the path with its query. */
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: RequestBody | undefined;
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
export interface SentResponse {
  status: number;
  headers: RawHeaders;
  /** The body's bytes: a Node Readable (undici) or a web ReadableStream (fetch); read it with {@link chunksOf}. */
  body: ResponseBody;
  /** Where the answer came from. */
  readonly url: URL;
  /** Let go of the timer and the signal, once the body is consumed or abandoned. */
  done(): void;
  /** The SDK connection error for a failure, also of the body (a stall, an abort), the key scrubbed from it. */
  fail(error: unknown): Error;
  /** Drop the body unread, closing its connection. */
  release(): void;
  /** The body as text, at most `MAX_ERROR_BYTES` (an error answer's), the rest dropped with its connection; then `done()`. */
  errorText(): Promise<string>;
}

/** @internal The HTTP client behind the seam: undici's dispatcher (send.ts) or a fetch function (fetch-send.ts). */
export interface HttpClient {
  /** Send one request and read its whole answer (at most `MAX_JSON_BYTES`, `MAX_ERROR_BYTES` for an error status). */
  exchange(attempt: Attempt): Promise<BufferedResponse>;
  /** Send one request whose answer the caller streams; the timeout bounds the headers, then each idle gap in the body. */
  send(attempt: Attempt): Promise<SentResponse>;
  /** Release the connections this client owns (none for a fetch function, or a dispatcher the caller passed). */
  close(): Promise<void>;
}

/** Most bytes read of a JSON answer (a video or a page of them is a few KiB), and of an error answer. */
export const MAX_JSON_BYTES = 8 << 20;
export const MAX_ERROR_BYTES = 64 << 10;
const TIMED_OUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The error code of a failure or of its causes (undici and fetch wrap socket errors). */
export function errorCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; depth < 4 && cause && typeof cause === 'object'; depth++) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return (error as { code?: string } | undefined)?.code;
}

/** How a request ended without an answer, as its implementation saw it. */
export interface Failure {
  error: unknown;
  /** Node's or undici's code of the failure, when it has one. */
  code: string | undefined;
  attempt: Attempt;
  secret: string;
  /** The request's own timer went off. */
  timedOut: boolean;
  /** The body sent nothing for its idle limit. */
  stalled: boolean;
  /** The proxy the request went through, if any (undici's proxy agents). */
  proxy?: URL | undefined;
}

/** The typed connection error of a failure: its kind (a certificate, a proxy...), where it happened and why, key scrubbed. */
export function connectionError({ error, code, attempt, secret, timedOut, stalled, proxy }: Failure): APIConnectionError {
  const target = new URL(attempt.origin);
  const where = { origin: attempt.site ?? 'api', host: target.host, cause: error } as const;
  const known = diagnose(error, { ...where, proxy });
  const detail = scrub(error instanceof Error ? error.message : String(error), secret);
  const at = where.origin === 'file-host' ? ` at ${describeServer(where.origin, where.host)}` : '';
  const idle = attempt.idleTimeout ?? attempt.timeout;
  const result = known
    ? new APIConnectionError(scrub(known.message, secret), { ...where, code: known.code })
    : stalled
      ? new APIConnectionTimeoutError(`The answer's body stalled${at}: no data for ${idle} ms.`, where)
      : timedOut || (code && TIMED_OUT.has(code))
        ? new APIConnectionTimeoutError(`Request timed out${at} (${detail}).`, where)
        : new APIConnectionError(`Connection error${at}: ${detail}${code ? ` (${code})` : ''}.`, where);
  if (code && NOT_CONNECTED.has(code)) unsent.add(result);
  return result;
}

/**
 * One attempt's deadline and the caller's signal, what both implementations share: either stops the request once,
 * through `onStop`; the signal only until the body was sent whole when the attempt `abortsUntilSent` (`commit`).
 */
export class AttemptGuard {
  readonly attempt: Attempt;
  /** The key, scrubbed from every failure's message. */
  readonly #secret: string;
  readonly #onStop: (reason: Error) => void;
  #reason: Error | undefined;
  #timedOut = false;
  #committed = false;
  readonly #timer: ReturnType<typeof setTimeout>;
  /** Forgets the stop on the caller's signal (its one shared listener: abort-listener.ts). */
  readonly #forgetSignal: () => void;

  constructor(attempt: Attempt, secret: string, onStop: (reason: Error) => void) {
    this.attempt = attempt;
    this.#secret = secret;
    this.#onStop = onStop;
    const { signal, timeout } = attempt;
    this.#forgetSignal = whenAborted(signal, () => this.#committed || this.stop(signal?.reason));
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.stop(new Error(`timed out after ${timeout} ms`));
    }, timeout);
  }

  /** Why the request was stopped, once it was. */
  get reason(): Error | undefined {
    return this.#reason;
  }

  /** Whether the attempt's own timer stopped it. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Stop the request (the timer, the signal, a stalled body): the first reason wins. */
  stop(reason: unknown): void {
    if (this.#reason) return;
    this.#reason = reason instanceof Error ? reason : new Error(String(reason));
    this.#onStop(this.#reason);
  }

  /** The body was sent whole: a create's answer may name a paid job, so the signal no longer stops it. */
  commit(): void {
    if (this.attempt.abortsUntilSent) this.#committed = true;
  }

  /** The timeout now bounds only each idle gap in the body. */
  headsOnly(): void {
    clearTimeout(this.#timer);
  }

  /** Let go of the timer and the signal. */
  done(): void {
    clearTimeout(this.#timer);
    this.#forgetSignal();
  }

  /** The SDK error for a failure, as its implementation read it (`code`, a stalled body, the proxy), key scrubbed. */
  fail(error: unknown, seen: { code: string | undefined; stalled: boolean; proxy?: URL | undefined }): Error {
    if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return error;
    const { signal } = this.attempt;
    if (signal?.aborted && !this.#committed && !this.#timedOut && !seen.stalled) return abortError(signal, 'Request');
    return connectionError({ error, attempt: this.attempt, secret: this.#secret, timedOut: this.#timedOut, ...seen });
  }
}

const decoder = new TextDecoder();

/** The start of a body, at most `limit` bytes: the one bounded reader. */
export class Gathered {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(readonly limit: number) {}

  /** The bounded reader of an answer with `status`: a success's JSON or an error's text. */
  static of(status: number): Gathered {
    return new Gathered(status < 300 ? MAX_JSON_BYTES : MAX_ERROR_BYTES);
  }

  tooLong(headers: RawHeaders): boolean {
    return Number(header(headers, 'content-length')) > this.limit;
  }

  /** Keep what fits of `chunk`; false once some of it did not. */
  add(chunk: Uint8Array): boolean {
    const room = this.limit - this.#size;
    this.#chunks.push(chunk.length <= room ? chunk : chunk.subarray(0, room));
    this.#size += Math.min(chunk.length, room);
    return chunk.length <= room;
  }

  text(): string {
    if (this.#chunks.length === 1) return decoder.decode(this.#chunks[0]);
    const whole = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    return decoder.decode(whole);
  }
}
