import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '../errors.js';
import { header, type RawHeaders } from './headers.js';
import { scrub } from './redact.js';
import { unsent } from './retry.js';

// The HTTP exchanges under the Transport, each bounded by a timeout and the caller's signal: `exchange` reads a
// whole (small) answer, `send` hands over a body to stream.

/** One HTTP exchange, before retries. */
export interface Attempt {
  /** `https://host:port`. */
  origin: string;
  /** Path and query: `/v1/videos/vid_1`. */
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Readable | undefined;
  /** Milliseconds for the whole exchange (`exchange`) or until the headers, then each idle gap in the body (`send`). */
  timeout: number;
  signal?: AbortSignal | undefined;
  /**
   * The signal stops the request only until its body has been handed over whole: a create, whose server may then be
   * making a paid job that only the answer names. After that the answer is awaited, within the timeout.
   */
  abortsUntilSent?: boolean | undefined;
}

/** Most bytes read of a JSON answer: a video object or a page of them is a few KiB. */
export const MAX_JSON_BYTES = 8 << 20;
/** Most bytes read of an error answer; the rest is dropped with the connection. */
const MAX_ERROR_BYTES = 64 << 10;

/** Failures before any byte of the request left: a create may be repeated. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

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

const userAbort = (signal: AbortSignal) => new APIUserAbortError('Request was aborted.', { cause: signal.reason });

/** undici's options for an attempt: its idle timeouts (header and body) are our timeout too. */
function undiciOptions({ origin, path, method, headers, body, timeout }: Attempt) {
  return { origin, path, method, headers, body: body ?? null, headersTimeout: timeout, bodyTimeout: timeout };
}

/** What both kinds of exchange share: the caller's signal and a deadline, until `done()`; `stop` cuts it short. */
abstract class Bounded {
  timedOut = false;
  readonly deadline: number;
  protected readonly attempt: Attempt;
  readonly #secret: string;
  /** The whole body was handed over, and the signal no longer stops this request (`abortsUntilSent`). */
  #committed = false;
  readonly #onAbort = () => {
    if (!this.#committed) this.stop(this.attempt.signal?.reason);
  };

  constructor(attempt: Attempt, secret: string) {
    this.attempt = attempt;
    this.#secret = secret;
    attempt.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (attempt.abortsUntilSent && attempt.signal) {
      attempt.body?.once('end', () => {
        this.#committed = true;
      });
    }
    this.deadline = performance.now() + attempt.timeout;
    inFlight.add(this);
    if (this.deadline < timerAt) setTimer(this.deadline);
  }

  protected abstract stop(reason: unknown): void;

  expire(): void {
    this.timedOut = true;
    this.stop(new Error(`timed out after ${this.attempt.timeout} ms`));
  }

  /** Release the deadline and the signal link; for a streamed answer, once its body is consumed or abandoned. */
  done(): void {
    inFlight.delete(this);
    this.attempt.signal?.removeEventListener('abort', this.#onAbort);
  }

  /** The SDK connection error for a failure, also of the body (a stall, an abort), the key scrubbed from it. */
  fail(error: unknown): Error {
    const { signal } = this.attempt;
    if (error instanceof APIUserAbortError || error instanceof APIConnectionError) return error;
    if (signal?.aborted && !this.#committed) return userAbort(signal);
    const code = errorCode(error);
    const detail = scrub(error instanceof Error ? error.message : String(error), this.#secret);
    const result =
      this.timedOut || (code && TIMEOUT_CODES.has(code))
        ? new APIConnectionTimeoutError(`Request timed out (${detail}).`, { cause: error })
        : new APIConnectionError(`Connection error: ${detail}${code ? ` (${code})` : ''}.`, { cause: error });
    if (code && NOT_SENT_CODES.has(code)) unsent.add(result);
    return result;
  }
}

/** Deadlines in flight, under one unref'd timer for the earliest: a timer per request cost 5% of a poll's CPU. */
const inFlight = new Set<Bounded>();
let timer: NodeJS.Timeout | undefined;
let timerAt = Number.POSITIVE_INFINITY;

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

/** A whole answer: its body as text, at most `MAX_JSON_BYTES` (`MAX_ERROR_BYTES` for an error status). */
export interface BufferedResponse {
  status: number;
  headers: RawHeaders;
  text: string;
  /** The body was longer than the limit: `text` holds its start and the connection was dropped. */
  truncated: boolean;
}

/** The start of a body, at most `limit` bytes: how both kinds of exchange read a small answer. */
class BodyStart {
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
    return Buffer.concat(this.#chunks, this.#size).toString('utf8');
  }
}

/**
 * Send one request and read its whole answer, the timeout covering both (a body that drips still times out), at
 * most so many bytes of it (a hostile server may never stop). A handler of undici's `dispatch` gathers the body:
 * the stream `request()` builds for it cost more than the rest of a poll (bench/poll.ts).
 */
export function exchange(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<BufferedResponse> {
  if (attempt.signal?.aborted) return Promise.reject(userAbort(attempt.signal));
  return new Promise((resolve, reject) => {
    const gather = new Gather(attempt, secret, resolve, reject);
    try {
      dispatcher.dispatch(undiciOptions(attempt), gather);
    } catch (error) {
      gather.onResponseError(undefined, error as Error);
    }
  });
}

/** The handler of one `exchange`. */
class Gather extends Bounded implements Dispatcher.DispatchHandler {
  #status = 0;
  #headers: RawHeaders = {};
  #body = new BodyStart(MAX_JSON_BYTES);
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the request must stop, when that was decided before undici handed over its controller. */
  #stopped: Error | undefined;
  #settled = false;
  readonly #resolve: (response: BufferedResponse) => void;
  readonly #reject: (error: Error) => void;

  constructor(attempt: Attempt, secret: string, resolve: (response: BufferedResponse) => void, reject: (error: Error) => void) {
    super(attempt, secret);
    this.#resolve = resolve;
    this.#reject = reject;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopped) controller.abort(this.#stopped);
  }

  onResponseStart(_controller: unknown, status: number, headers: RawHeaders): void {
    if (status < 200) return; // 1xx: the answer is still to come
    this.#status = status;
    this.#headers = headers;
    this.#body = new BodyStart(status < 300 ? MAX_JSON_BYTES : MAX_ERROR_BYTES);
    if (this.#body.tooLong(headers)) this.#finish(true);
  }

  onResponseData(_controller: unknown, chunk: Buffer): void {
    if (!this.#settled && !this.#body.add(chunk)) this.#finish(true);
  }

  onResponseEnd(): void {
    this.#finish(false);
  }

  onResponseError(_controller: unknown, error: Error): void {
    if (this.#end()) this.#reject(this.fail(error));
  }

  protected stop(reason: unknown): void {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    if (this.#controller) {
      this.#controller.abort(error);
      return;
    }
    // Still queued for a connection: answer now, and stop the request if it ever starts.
    this.#stopped = error;
    this.onResponseError(undefined, error);
  }

  #finish(truncated: boolean): void {
    if (!this.#end()) return;
    this.#resolve({ status: this.#status, headers: this.#headers, text: this.#body.text(), truncated });
    // The rest of a body too long is dropped with its connection.
    if (truncated) this.stop(new Error('answer too long'));
  }

  /** Settle once: true for the first call only. */
  #end(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.done();
    return true;
  }
}

/** An answer whose body is still to be read: the caller reads it (or releases it), then calls `done()`. */
export type SentResponse = Pick<Streamed, 'status' | 'headers' | 'body' | 'url' | 'done' | 'fail' | 'release'>;

/** Send one request whose body the caller streams; the timeout bounds the headers, then each idle gap in the body. */
export async function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  if (attempt.signal?.aborted) throw userAbort(attempt.signal);
  const streamed = new Streamed(attempt, secret);
  try {
    const response = await dispatcher.request({ ...undiciOptions(attempt), signal: streamed.switch });
    inFlight.delete(streamed);
    streamed.status = response.statusCode;
    streamed.headers = response.headers;
    streamed.body = response.body;
    return streamed;
  } catch (error) {
    streamed.done();
    throw streamed.fail(error);
  }
}

/** The abort switch undici takes as `signal`: an EventEmitter, as undici allows (an AbortController cost 12 µs). */
class AbortSwitch extends EventEmitter {
  aborted = false;
  reason: unknown;
}

/** A streamed exchange, then its answer. */
class Streamed extends Bounded {
  status = 0;
  headers: RawHeaders = {};
  body!: Dispatcher.ResponseData['body'];
  readonly switch = new AbortSwitch();
  #url: URL | undefined;

  /** Where the answer came from. */
  get url(): URL {
    this.#url ??= new URL(this.attempt.path, this.attempt.origin);
    return this.#url;
  }

  protected stop(reason: unknown): void {
    if (this.switch.aborted) return;
    this.switch.aborted = true;
    this.switch.reason = reason;
    this.switch.emit('abort');
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
 * Read a streamed error answer's body as text, at most `MAX_ERROR_BYTES`. Events rather than `for await`: the
 * async iterator destroys the body when it finishes, which can cost the keep-alive connection it came on.
 */
export async function readErrorText(response: SentResponse): Promise<string> {
  const body = new BodyStart(MAX_ERROR_BYTES);
  try {
    if (body.tooLong(response.headers)) {
      response.release();
      return '';
    }
    return await new Promise<string>((resolve, reject) => {
      response.body.on('data', (chunk: Buffer) => {
        if (body.add(chunk)) return;
        response.release();
        resolve(body.text());
      });
      response.body.once('end', () => resolve(body.text()));
      response.body.once('error', reject);
    });
  } catch (error) {
    throw response.fail(error);
  } finally {
    response.done();
  }
}
