import type * as Zod from 'zod';
import type { LocalSource } from './byte-source.js';
import type { CreateRate } from './create-rate.js';
import type { FetchFunction } from './fetch-send.js';
import type { HttpClient, RequestBody, ResponseBody } from './http-client.js';
import type { FilePart } from './multipart-body.js';

// The port of what differs between runtimes: Node (with Bun and Deno) and the web (Workers, Edge, browsers) each give
// one object of this shape (platform/node.ts, web/platform.ts). The entry hands it to the one client; the few free
// functions below the client that need a part of it (tracing, opening an upload, loading mediabunny: `Runtime`)
// import that part as `#platform`, which package.json's `imports` resolves by the same conditions as the entries:
// Node's platform/node-runtime.ts (without the HTTP client, which avatar-video/media does not bundle), the web's
// whole web/platform.ts.

/** The client options a platform reads to find the key and the address. */
export interface CredentialOptions {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  allowInsecureHttp?: boolean | undefined;
  logLevel?: string | undefined;
}

/** Where the key and the address came from, checked. */
export interface Credentials {
  /** undefined only for a page behind avatar-video/proxy, which adds the key on its server. */
  apiKey: string | undefined;
  /** Validated, with a trailing slash. */
  baseURL: string;
  /** The log level asked for (an option, or the environment's). */
  logLevel: string | undefined;
  /** The `user-agent` header to send, when the runtime lets one be set. */
  userAgent: string | undefined;
  /** The create rate the environment declares (`AVATAR_VIDEO_CREATE_RATE`), where the runtime has one. */
  createRate: CreateRate | undefined;
}

/** What the client's HTTP client is made from. */
export interface HttpOptions {
  fetch: FetchFunction | undefined;
  dispatcher: unknown;
  /** The API key, scrubbed from every failure's message; '' without one. */
  secret: string;
}

/** A streamed answer, for the content body to be made from. */
export interface StreamedBody {
  body: ResponseBody;
  done(): void;
  fail(error: unknown): Error;
  release(): void;
}

/** The part of a `node:diagnostics_channel` TracingChannel the SDK uses. */
export interface TracingChannel<P extends object> {
  readonly hasSubscribers: boolean;
  tracePromise<T>(call: () => Promise<T>, context: P): Promise<T>;
}

/** The part of an `AsyncLocalStorage` the SDK uses: the traced operation around a call. */
export interface OperationScope {
  run<R>(store: object, call: () => R): R;
  getStore(): object | undefined;
}

/** The part of a platform that code below the client reaches, as `#platform`. */
export interface Runtime {
  /** Open an upload input (a path, a stream, bytes, as the runtime allows) for probing and sending. */
  openSource(input: unknown, field: string, name?: string): Promise<LocalSource>;
  /** Whether an input can be read only once (a stream): a second reader would find it empty. */
  isOneShot(input: unknown): boolean;
  /** A tracing channel named `name` (inert where the runtime has none). */
  tracingChannel<P extends object>(name: string): TracingChannel<P>;
  /** The traced operation's scope across awaits (inert where the runtime has none). */
  operationScope(): OperationScope;
  /** mediabunny, for probing an MP4/MOV and joining videos. */
  loadMediabunny(): Promise<typeof import('mediabunny')>;
}

/** A runtime's platform: what the one client is built with. */
export interface Platform extends Runtime {
  /** The example of the options a client needs, for the message of a missing one. */
  readonly optionsExample: string | undefined;
  /** The key and base URL from the options and the runtime's own rules (its environment, a page's address). */
  credentials(options: CredentialOptions): Credentials;
  /** The HTTP client of one client (internal/http-client.ts's seam). */
  http(options: HttpOptions): HttpClient;
  /** A create's multipart body, as this runtime's HTTP client sends it; called once per attempt. */
  encodeMultipart(
    files: FilePart[],
    fields: Record<string, string>,
    onProgress?: (progress: { bytes: number; total: number }) => void,
  ): Promise<{ stream: RequestBody; headers: Record<string, string> }>;
  /** A video's bytes as this runtime's users read a stream (a Node Readable, a web ReadableStream). */
  contentBody(response: StreamedBody): unknown;
  /** zod, for an answer its schema's fast path did not take. */
  loadZod(): Promise<typeof Zod>;
}
