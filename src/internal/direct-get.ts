import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { APIConnectionError, APIUserAbortError } from '../errors.js';
import { toConnectionError } from './transport.js';

/**
 * Why this exists: undici (like every Node socket without `onread`) hands each read to JavaScript in
 * a freshly allocated 64 KiB buffer. Writing those cold buffers to a file ran at 0.45–0.55x of curl on
 * this project's download bench; one reused read buffer ran at 1.0–1.1x (bench/download.ts). So the
 * file host's response is read here, on a socket of its own with a single buffer, and only when it is
 * the plain case: a 200 or 206 with a Content-Length. Anything else (redirects, errors, chunked bodies)
 * is left to undici: {@link directGet} closes the socket and says it declined.
 */
const READ_BUFFER_BYTES = 256 << 10;
/** A response head larger than this is not the plain case. */
const MAX_HEAD_BYTES = 64 << 10;
const HEAD_END = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNSAFE_VALUE = /[\r\n\0]/;

export interface DirectGetOptions {
  /** Milliseconds for the connection and head, then for each idle gap in the body. */
  timeout: number;
  signal?: AbortSignal | undefined;
  /** Scrubbed from error messages. */
  secret: string;
  /** Extra TLS settings (tests use a private CA). */
  tls?: ConnectionOptions;
}

/** A plain response whose body has not been read yet. */
export interface DirectResponse {
  plain: true;
  status: number;
  headers: Record<string, string | string[]>;
  url: URL;
  /** The body's length, from Content-Length. */
  length: number;
  /**
   * Hand the body to `sink` chunk by chunk. A chunk is valid only during the call: the buffer is
   * reused for the next read. When `sink` returns a promise, reading pauses until it resolves.
   * Resolves after `length` bytes; rejects with an SDK connection error when the body stops short,
   * stalls past the timeout or is aborted, or with what `sink` threw. Call at most once.
   */
  pipeTo(sink: (chunk: Buffer) => Promise<void> | undefined): Promise<void>;
  /** Close the connection without reading the body. */
  close(): void;
}

/** Not the plain case; the connection is closed. `status` is the response's, when one was read. */
export interface Declined {
  plain: false;
  status: number | undefined;
}

interface Head {
  status: number;
  headers: Record<string, string | string[]>;
}

/**
 * GET `url` on a new connection (`Connection: close`) and read the response head. Resolves with the
 * response when it is a 200 or 206 with a Content-Length and no Transfer-Encoding; otherwise closes
 * the connection and resolves {@link Declined}, so the caller can ask again through undici. Rejects
 * with an SDK connection error when the connection fails before the head.
 */
export function directGet(url: URL, headers: Record<string, string>, options: DirectGetOptions): Promise<DirectResponse | Declined> {
  const request = requestHead(url, headers);
  if (!request) return Promise.resolve({ plain: false, status: undefined });
  if (options.signal?.aborted) return Promise.reject(new APIUserAbortError('Request was aborted.', { cause: options.signal.reason }));
  return new Exchange(url, request, options).head;
}

/** The request's head, or undefined when a header could not be written safely. */
function requestHead(url: URL, headers: Record<string, string>): string | undefined {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'connection') continue;
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value)) return undefined;
    lines.push(`${name}: ${value}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Parse a response head (without its final blank line); undefined when it is not plain HTTP/1.x. */
export function parseHead(text: string): Head | undefined {
  const [statusLine, ...lines] = text.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine ?? '')?.[1];
  if (!status) return undefined;
  const headers: Record<string, string | string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    // No colon, a space before it, or an obsolete folded line: not the plain case.
    if (colon <= 0 || !TOKEN.test(name)) return undefined;
    const value = line.slice(colon + 1).trim();
    const seen = headers[name];
    if (seen === undefined) headers[name] = value;
    else headers[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return { status: Number(status), headers };
}

/** The body length of a plain response, or undefined when the response is not one. */
function plainLength(head: Head): number | undefined {
  if (head.status !== 200 && head.status !== 206) return undefined;
  if (head.headers['transfer-encoding'] !== undefined) return undefined;
  const value = head.headers['content-length'];
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) ? length : undefined;
}

type Sink = (chunk: Buffer) => Promise<void> | undefined;

/** One request on one socket: the head, then the body into a sink. */
class Exchange {
  readonly head: Promise<DirectResponse | Declined>;
  readonly #url: URL;
  readonly #options: DirectGetOptions;
  readonly #socket: Socket;
  #phase: 'head' | 'waiting' | 'body' | 'done' = 'head';
  /** Bytes of the head read so far (copied: the read buffer is reused). */
  #pending = Buffer.alloc(0);
  /** Body bytes that arrived with the head or while the sink was busy (copies), delivered first. */
  #backlog: Buffer[] = [];
  /** The sink's last promise has not settled: new bytes wait in the backlog. */
  #busy = false;
  #length = 0;
  #received = 0;
  #sink: Sink | undefined;
  #timedOut = false;
  #settleHead!: { resolve(value: DirectResponse | Declined): void; reject(error: unknown): void };
  #settleBody: { resolve(): void; reject(error: unknown): void } | undefined;
  /** Why the exchange ended early, kept for a `pipeTo` that comes later. */
  #failure: unknown;

  constructor(url: URL, request: string, options: DirectGetOptions) {
    this.#url = url;
    this.#options = options;
    this.head = new Promise((resolve, reject) => {
      this.#settleHead = { resolve, reject };
    });
    const onread = {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (bytes: number, buffer: Buffer) => this.#read(buffer.subarray(0, bytes)),
    };
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = url.protocol === 'https:';
    const port = Number(url.port) || (secure ? 443 : 80);
    this.#socket = secure
      ? tlsConnect({
          host,
          port,
          servername: isIP(host) ? undefined : host,
          ALPNProtocols: ['http/1.1'],
          onread,
          ...options.tls,
        } as ConnectionOptions)
      : netConnect({ host, port, onread });
    this.#socket.once(secure ? 'secureConnect' : 'connect', () => this.#socket.write(request));
    this.#socket.setTimeout(options.timeout, () => {
      this.#timedOut = true;
      this.#socket.destroy(new Error(`timed out after ${options.timeout} ms`));
    });
    this.#socket.on('error', (error) => {
      if (!this.#allArrived()) this.#fail(toConnectionError(error, options.signal, this.#timedOut, options.secret));
    });
    this.#socket.on('close', () => {
      // Closing after the last byte is what `Connection: close` asks for, even while the sink still works.
      if (this.#allArrived()) return;
      const where = this.#phase === 'head' ? 'before the response head' : `after ${this.#received} of ${this.#length} body bytes`;
      this.#fail(new APIConnectionError(`Connection error: the file host closed the connection ${where}.`));
    });
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly #onAbort = () => {
    this.#fail(new APIUserAbortError('Request was aborted.', { cause: this.#options.signal?.reason }));
  };

  /** The `onread` callback: false pauses the socket. */
  #read(chunk: Buffer): boolean {
    if (this.#phase === 'body' && !this.#busy) return this.#deliver(chunk);
    if (this.#phase === 'waiting' || this.#phase === 'body') {
      // Not expected once paused, but TLS may still hand over bytes it had decrypted: keep a copy.
      this.#backlog.push(Buffer.from(chunk));
      return false;
    }
    if (this.#phase !== 'head') return false;
    const searchFrom = Math.max(0, this.#pending.length - 3);
    this.#pending = Buffer.concat([this.#pending, chunk]);
    const end = this.#pending.indexOf(HEAD_END, searchFrom);
    if (end < 0) {
      if (this.#pending.length > MAX_HEAD_BYTES) this.#giveUp(undefined);
      return true;
    }
    const head = end <= MAX_HEAD_BYTES ? parseHead(this.#pending.toString('latin1', 0, end)) : undefined;
    const length = head && plainLength(head);
    if (!head || length === undefined) {
      this.#giveUp(head?.status);
      return false;
    }
    this.#length = length;
    // Body bytes that came with the head: `#pending` is already a copy.
    if (this.#pending.length > end + HEAD_END.length) this.#backlog.push(this.#pending.subarray(end + HEAD_END.length));
    this.#pending = Buffer.alloc(0);
    this.#phase = 'waiting';
    this.#pause();
    this.#settleHead.resolve({
      plain: true,
      ...head,
      url: this.#url,
      length,
      pipeTo: (sink) => this.#pipeTo(sink),
      close: () => this.#end(),
    });
    return false;
  }

  #pipeTo(sink: Sink): Promise<void> {
    if (this.#phase !== 'waiting') return Promise.reject(this.#failure ?? new Error('The body was already read.'));
    this.#sink = sink;
    this.#phase = 'body';
    const body = new Promise<void>((resolve, reject) => {
      this.#settleBody = { resolve, reject };
    });
    if (this.#length === 0) this.#end();
    else this.#drainBacklog();
    return body;
  }

  /** Pass body bytes to the sink; true to keep reading, false when paused or ended. */
  #deliver(chunk: Buffer): boolean {
    const room = this.#length - this.#received;
    if (room <= 0) return false;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#received += part.length;
    let wait: Promise<void> | undefined;
    try {
      wait = this.#sink?.(part);
    } catch (error) {
      this.#fail(error);
      return false;
    }
    const last = this.#received === this.#length;
    if (!wait) {
      if (last) this.#end();
      return !last;
    }
    this.#busy = true;
    this.#pause();
    wait.then(
      () => {
        this.#busy = false;
        if (last) this.#end();
        else this.#drainBacklog();
      },
      (error: unknown) => this.#fail(error),
    );
    return false;
  }

  /** Deliver what was kept aside, then read from the socket again. */
  #drainBacklog(): void {
    while (this.#phase === 'body' && !this.#busy) {
      const next = this.#backlog.shift();
      if (!next) break;
      this.#deliver(next);
    }
    if (this.#phase === 'body' && !this.#busy) this.#resume();
  }

  /** Every body byte is in: handed to the sink or kept aside for it. */
  #allArrived(): boolean {
    if (this.#phase !== 'waiting' && this.#phase !== 'body') return false;
    return this.#received + this.#backlog.reduce((sum, chunk) => sum + chunk.length, 0) >= this.#length;
  }

  /** Stop reading; a pause we asked for does not count against the idle timeout. */
  #pause(): void {
    this.#socket.pause();
    this.#socket.setTimeout(0);
  }

  #resume(): void {
    if (this.#phase !== 'body') return;
    this.#socket.setTimeout(this.#options.timeout);
    this.#socket.resume();
  }

  /** Not the plain case: close and let the caller ask through undici. */
  #giveUp(status: number | undefined): void {
    if (this.#phase !== 'head') return;
    this.#phase = 'done';
    this.#cleanUp();
    this.#settleHead.resolve({ plain: false, status });
  }

  /** The body is complete (or abandoned): close. */
  #end(): void {
    if (this.#phase === 'done') return;
    this.#phase = 'done';
    this.#failure = new Error('The response was closed.');
    this.#cleanUp();
    this.#settleBody?.resolve();
  }

  #fail(error: unknown): void {
    if (this.#phase === 'done') return;
    const phase = this.#phase;
    this.#phase = 'done';
    this.#failure = error;
    this.#cleanUp();
    if (phase === 'head') this.#settleHead.reject(error);
    else this.#settleBody?.reject(error);
  }

  #cleanUp(): void {
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    this.#socket.setTimeout(0);
    this.#socket.destroy();
  }
}
