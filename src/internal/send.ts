import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Dispatcher } from 'undici';
import { abortError } from './abort.js';
import { proxyOf } from './connection-problem.js';
import type { RawHeaders } from './headers.js';
import {
  type Attempt,
  AttemptGuard,
  type BufferedResponse,
  errorCode,
  Gathered,
  type HttpClient,
  MAX_ERROR_BYTES,
  type RequestBody,
  type SentResponse,
} from './http-client.js';
import { undici } from './undici-dispatches.js';

// The HTTP seam (http-client.ts) on undici's public API: one exchange under the caller's signal and one timer.

const ignore = () => {};

/** undici's options for an attempt: its idle timeouts are the attempt's timeout (headers) and its `idleTimeout` (body). */
function options({ origin, path, method, headers, timeout, idleTimeout }: Attempt, body: Readable | null) {
  return { origin, path, method, headers, body, headersTimeout: timeout, bodyTimeout: idleTimeout ?? timeout };
}

/** A request body as the Node stream undici sends (and whose 'end' says it was taken whole). */
function readable(body: RequestBody | undefined): Readable | null {
  if (body === undefined) return null;
  if (body instanceof Readable) return body;
  if ('getReader' in body) return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  return Readable.from(body, { objectMode: false });
}

/** One request under its guard (its timer and the caller's signal), then its answer. */
class Exchange implements SentResponse {
  status = 0;
  headers: RawHeaders = {};
  body!: Readable;
  /** The request's body, as undici takes it. */
  readonly requestBody: Readable | null;
  readonly guard: AttemptGuard;
  readonly #dispatcher: Dispatcher;
  #settled = false;

  constructor(attempt: Attempt, dispatcher: Dispatcher, secret: string, onStop: (reason: Error) => void) {
    this.#dispatcher = dispatcher;
    this.guard = new AttemptGuard(attempt, secret, onStop);
    this.requestBody = readable(attempt.body);
    this.requestBody?.once('end', () => this.guard.commit());
  }

  /** True the first time only: the call is answered (or failed) now. */
  settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    return true;
  }

  /** Where the answer came from. */
  get url(): URL {
    return new URL(this.guard.attempt.path, this.guard.attempt.origin);
  }

  /** Let go of the timer and the signal; for a streamed answer, once its body is consumed or abandoned. */
  done(): void {
    this.guard.done();
  }

  /** Drop the body unread, closing its connection (a dump could wait on a stalled body). */
  release(): void {
    this.body.on('error', ignore).destroy(); // undici reports the destroy as an 'error'
    this.done();
  }

  /** The SDK connection error for a failure, also of the body (a stall, an abort), the key scrubbed from it. */
  fail(error: unknown): Error {
    const code = errorCode(error);
    const proxy = proxyOf(this.#dispatcher, new URL(this.guard.attempt.origin));
    // undici's own idle timeout of the body (the attempt's timer bounds only the headers).
    return this.guard.fail(error, { code, stalled: code === 'UND_ERR_BODY_TIMEOUT' && !this.guard.timedOut, proxy });
  }

  /**
   * The body as text, at most `MAX_ERROR_BYTES`, then the connection is dropped. Events, not `for await`, whose end
   * destroys the body and can cost its keep-alive connection.
   */
  errorText(): Promise<string> {
    const gathered = new Gathered(MAX_ERROR_BYTES);
    let settled = false;
    return new Promise<string>((resolve, reject) => {
      const finish = (error: unknown, truncated: boolean) => {
        if (settled) return;
        settled = true;
        this.done();
        if (truncated) this.release();
        error ? reject(this.fail(error)) : resolve(gathered.text());
      };
      if (gathered.tooLong(this.headers)) return finish(undefined, true);
      this.body.on('data', (chunk: Buffer) => gathered.add(chunk) || finish(undefined, true));
      this.body.once('end', () => finish(undefined, false));
      this.body.once('error', (error) => finish(error, false));
    });
  }
}

/** Send one request whose body the caller streams; the timeout bounds the headers, then each idle gap in the body. */
function send(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<SentResponse> {
  if (attempt.signal?.aborted) return Promise.reject(abortError(attempt.signal, 'Request'));
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
    dispatcher.request({ ...options(attempt, sent.requestBody), signal: abort.signal }, (error, answer) => {
      if (error) return fail(error);
      if (!sent.settle()) return answer.body.on('error', ignore).destroy();
      sent.guard.headsOnly();
      ({ statusCode: sent.status, headers: sent.headers, body: sent.body } = answer);
      resolve(sent);
    });
  });
}

/**
 * Send one request and read its whole answer (at most `MAX_JSON_BYTES`, `MAX_ERROR_BYTES` for an error status), the
 * timeout covering both. Through undici's `dispatch` with a handler that gathers the bytes, not `request`: the
 * Readable that `request` builds for a body cost a fifth of a poll's CPU (bench/poll.ts).
 */
function exchange(dispatcher: Dispatcher, attempt: Attempt, secret: string): Promise<BufferedResponse> {
  if (attempt.signal?.aborted) return Promise.reject(abortError(attempt.signal, 'Request'));
  return new Promise((resolve, reject) => {
    let [status, headers, body] = [0, {} as RawHeaders, Gathered.of(200)];
    let controller: Dispatcher.DispatchController | undefined;
    const fail = (error: Error) => {
      if (!sent.settle()) return;
      sent.done();
      reject(sent.fail(error));
    };
    const sent = new Exchange(attempt, dispatcher, secret, (reason) => {
      controller?.abort(reason);
      fail(reason);
    });
    const end = (truncated: boolean) => {
      if (!sent.settle()) return;
      sent.done();
      resolve({ status, headers, text: body.text(), truncated });
      if (truncated) controller?.abort(new Error('answer too long')); // the rest goes with its connection
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (started) => {
        controller = started;
        if (sent.guard.reason) started.abort(sent.guard.reason);
      },
      onResponseStart: (_controller, code, raw) => {
        if (code < 200) return; // 1xx: the answer is still to come
        [status, headers, body] = [code, raw as RawHeaders, Gathered.of(code)];
        if (body.tooLong(headers)) end(true);
      },
      onResponseData: (_controller, chunk) => body.add(chunk) || end(true),
      onResponseEnd: () => end(false),
      onResponseError: (_controller, error) => fail(error),
    };
    try {
      dispatcher.dispatch(options(attempt, sent.requestBody), handler);
    } catch (error) {
      fail(error as Error);
    }
  });
}

/** @internal The HTTP seam on undici: the caller's dispatcher, or a keep-alive pool of the client's own made at the first request. */
export class UndiciClient implements HttpClient {
  readonly #secret: string;
  #dispatcher: Dispatcher | undefined;
  readonly #owns: boolean;
  #closed = false;

  constructor(dispatcher: Dispatcher | undefined, secret: string) {
    this.#dispatcher = dispatcher;
    this.#owns = dispatcher === undefined;
    this.#secret = secret;
  }

  /** The dispatcher of every request. The own pool (and undici with it) is made at the first request, not with the client. */
  #pool(): Dispatcher {
    if (this.#dispatcher) return this.#dispatcher;
    // One keep-alive pool per client; downloads from one file host reuse its connections.
    const agent = new (undici().Agent)({ keepAliveTimeout: 30_000, connections: 64 });
    // A client closed before its first request fails as a closed one does, rather than opening a pool.
    if (this.#closed) void agent.destroy();
    this.#dispatcher = agent;
    return agent;
  }

  exchange(attempt: Attempt): Promise<BufferedResponse> {
    return exchange(this.#pool(), attempt, this.#secret);
  }

  send(attempt: Attempt): Promise<SentResponse> {
    return send(this.#pool(), attempt, this.#secret);
  }

  /** Close the own pool; a dispatcher passed in belongs to the caller. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#owns) await this.#dispatcher?.close();
  }
}
