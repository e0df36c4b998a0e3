import { abortError } from './abort.js';
import { header, type RawHeaders } from './headers.js';
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

// The HTTP seam over a fetch function: the runtime's own (Bun, Deno, Workers, browsers) or one the user passes (an
// instrumented fetch). Web-pure: Uint8Array, ReadableStream, TextDecoder, AbortController and timers, no `node:`.

/** A fetch function: the global one, or any with its signature. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Codes fetch implementations give a failed connect, as Node's: Bun names them, Deno says them in words. */
const CODES: Record<string, string> = { ConnectionRefused: 'ECONNREFUSED', FailedToOpenSocket: 'ECONNREFUSED', DNSError: 'ENOTFOUND' };
const WORDS: [RegExp, string][] = [
  [/connection refused/i, 'ECONNREFUSED'],
  [/dns error|failed to lookup address|name or service not known|getaddrinfo/i, 'ENOTFOUND'],
  [/connection reset/i, 'ECONNRESET'],
];

/** Any code in a failure's chain, the socket's own included (Node's fetch wraps it in a plain TypeError). */
function anyCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; depth < 4 && cause && typeof cause === 'object'; depth++) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Node's code for a fetch failure, from its causes' codes or, where the runtime gives none, its words. */
function fetchCode(error: unknown): string | undefined {
  const code = errorCode(error) ?? anyCode(error);
  if (code) return CODES[code] ?? code;
  for (let cause = error, depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const found = WORDS.find(([words]) => words.test(cause instanceof Error ? cause.message : ''));
    if (found) return found[1];
    cause = cause.cause;
  }
  return undefined;
}

/** Response headers as the seam gives them: lowercased names, `set-cookie` as a list. */
function rawHeaders(headers: Headers): RawHeaders {
  const raw: RawHeaders = {};
  headers.forEach((value, name) => {
    raw[name] = value;
  });
  // Only an answer that sets a cookie pays for the list (a poll sets none).
  const cookies = raw['set-cookie'] === undefined ? undefined : headers.getSetCookie?.();
  if (cookies && cookies.length > 1) raw['set-cookie'] = cookies;
  return raw;
}

/** A reader of `body` whether it is a web stream or any async iterable of bytes. */
function pullFrom(body: RequestBody): () => Promise<IteratorResult<Uint8Array>> {
  if ('getReader' in body) {
    const reader = body.getReader();
    return () => reader.read() as Promise<IteratorResult<Uint8Array>>;
  }
  const iterator = body[Symbol.asyncIterator]();
  return () => iterator.next();
}

/** The request body as a stream fetch pulls, telling `onSent` once the last byte has been taken. */
function tracked(body: RequestBody, onSent: () => void): ReadableStream<Uint8Array> {
  const next = pullFrom(body);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await next();
        if (!done) return controller.enqueue(value);
        onSent();
        controller.close();
      },
      cancel: async (reason) => {
        if ('cancel' in body) await body.cancel(reason);
        else await (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]().return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/** One request under its guard (its timer and the caller's signal), then its answer: what `exchange` and `send` share. */
class FetchExchange {
  readonly controller = new AbortController();
  readonly guard: AttemptGuard;
  #stalled = false;

  constructor(attempt: Attempt, secret: string) {
    this.guard = new AttemptGuard(attempt, secret, (reason) => this.controller.abort(reason));
  }

  /** The fetch options of the attempt: redirects are the SDK's to follow (internal/redirect.ts). */
  init(): RequestInit {
    const { method, headers, body } = this.guard.attempt;
    const init: RequestInit & { duplex?: 'half' } = { method, headers, redirect: 'manual', signal: this.controller.signal };
    if (body) {
      init.body = tracked(body, () => this.guard.commit());
      init.duplex = 'half'; // a streamed body: Node's fetch requires the flag
    }
    return init;
  }

  get url(): string {
    return this.guard.attempt.origin + this.guard.attempt.path;
  }

  /** The body sent nothing for its idle limit: stop it. */
  stall(): void {
    this.#stalled = true;
    this.guard.stop(new Error('the body stalled'));
  }

  done(): void {
    this.guard.done();
  }

  fail(error: unknown): Error {
    return this.guard.fail(error, { code: fetchCode(error), stalled: this.#stalled });
  }
}

/** `source` read a chunk at a time, each read given up after `idle` ms of silence (`onStall`). */
function idleGuarded(source: ReadableStream<Uint8Array>, idle: number, onStall: () => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const timer = setTimeout(onStall, idle);
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** Read at most `gathered.limit` bytes of `body`; true when the rest was dropped (the body cancelled). */
async function gather(body: ReadableStream<Uint8Array> | null, gathered: Gathered): Promise<boolean> {
  if (!body) return false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    if (!gathered.add(value)) {
      reader.cancel().catch(() => {});
      return true;
    }
  }
}

/**
 * Read a whole answer into `gathered`, bounded: at once when its Content-Length (already within the limit) frames it,
 * a read per chunk otherwise. True when the rest was dropped.
 */
async function readBounded(response: Response, headers: RawHeaders, gathered: Gathered): Promise<boolean> {
  if (!Number.isFinite(Number(header(headers, 'content-length')))) return gather(response.body, gathered);
  // One call into the runtime instead of a read per chunk: half the CPU of a poll on Bun (bench/runtimes.ts).
  gathered.add(new Uint8Array(await response.arrayBuffer()));
  return false;
}

/** The streamed answer of one fetch exchange. */
class FetchResponse implements SentResponse {
  readonly body: ReadableStream<Uint8Array>;

  constructor(
    readonly status: number,
    readonly headers: RawHeaders,
    body: ReadableStream<Uint8Array> | null,
    readonly url: URL,
    readonly exchange: FetchExchange,
    idle: number,
  ) {
    this.body = idleGuarded(body ?? new ReadableStream({ start: (c) => c.close() }), idle, () => exchange.stall());
  }

  done(): void {
    this.exchange.done();
  }

  fail(error: unknown): Error {
    return this.exchange.fail(error);
  }

  release(): void {
    this.body.cancel().catch(() => {});
    this.done();
  }

  async errorText(): Promise<string> {
    const gathered = new Gathered(MAX_ERROR_BYTES);
    try {
      if (!gathered.tooLong(this.headers)) await gather(this.body, gathered);
      else this.body.cancel().catch(() => {});
      return gathered.text();
    } catch (error) {
      throw this.fail(error);
    } finally {
      this.done();
    }
  }
}

/** @internal The HTTP seam over `fetch`; `secret` is scrubbed from every failure's message. */
export class FetchClient implements HttpClient {
  readonly #fetch: FetchFunction;
  readonly #secret: string;

  constructor(fetch: FetchFunction, secret: string) {
    this.#fetch = fetch;
    this.#secret = secret;
  }

  async exchange(attempt: Attempt): Promise<BufferedResponse> {
    if (attempt.signal?.aborted) throw abortError(attempt.signal, 'Request');
    const sent = new FetchExchange(attempt, this.#secret);
    try {
      const response = await this.#fetch(sent.url, sent.init());
      const headers = rawHeaders(response.headers);
      const gathered = Gathered.of(response.status);
      const cut = gathered.tooLong(headers);
      if (cut) response.body?.cancel().catch(() => {});
      const truncated = cut || (await readBounded(response, headers, gathered));
      return { status: response.status, headers, text: gathered.text(), truncated };
    } catch (error) {
      throw sent.fail(error);
    } finally {
      sent.done();
    }
  }

  async send(attempt: Attempt): Promise<SentResponse> {
    if (attempt.signal?.aborted) throw abortError(attempt.signal, 'Request');
    const sent = new FetchExchange(attempt, this.#secret);
    let response: Response;
    try {
      response = await this.#fetch(sent.url, sent.init());
    } catch (error) {
      sent.done();
      throw sent.fail(error);
    }
    sent.guard.headsOnly();
    const url = new URL(attempt.path, attempt.origin);
    const idle = attempt.idleTimeout ?? attempt.timeout;
    return new FetchResponse(response.status, rawHeaders(response.headers), response.body, url, sent, idle);
  }

  async close(): Promise<void> {}
}

/** The seam over `fetch` (the runtime's global one by default), for the web entry and the `fetch` client option. */
export function fetchClient(secret: string, fetch: FetchFunction = globalThis.fetch.bind(globalThis)): HttpClient {
  return new FetchClient(fetch, secret);
}
