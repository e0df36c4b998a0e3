import type { Answer } from '../internal/api-promise.js';
import type { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import type { CreateGate } from '../internal/create-gate.js';
import type { CreateRate } from '../internal/create-rate.js';
import type { RawHeaders } from '../internal/headers.js';
import type { ResponseBody } from '../internal/http-client.js';
import type { Logger } from '../internal/logger.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Video } from '../schemas.js';
import type { VideoCreateParams } from './media/prepare.js';

/** What `onUploadProgress` is told. */
export interface UploadProgress {
  /** Bytes of the create's body handed to the connection so far. Starts again from 0 if the create is sent again. */
  bytes: number;
  /** The body's size (its Content-Length): the files and the form's fields. */
  total: number;
}

/** Options of `videos.create`. */
export interface CreateOptions extends RequestOptions {
  /** Check formats and durations locally before uploading. @default true */
  validate?: boolean | undefined;
  /**
   * The upload's progress, for a progress bar: called as the create's body is handed to the connection, from 0 to
   * its `total`; keep it cheap. Once `bytes` reaches `total`, the service may make the job even if no answer arrives.
   * @default undefined
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/** A create's inputs opened (and checked) once, to be sent as many times as its refusals take. */
export interface CreateUpload {
  /** One create request with these inputs (its retries are `options.maxRetries`'); the job it started. */
  send(options: RequestOptions & Pick<CreateOptions, 'onUploadProgress'>): Promise<Answer<Video>>;
  /** Close the inputs (and remove what was spooled). */
  close(): Promise<void>;
}

/** A streamed answer whose body the caller reads (or releases), then calls `done()`. */
export interface StreamedAnswer {
  status: number;
  headers: RawHeaders;
  /** A Node Readable (undici) or a web ReadableStream (fetch): read it with `chunksOf`. */
  body: ResponseBody;
  /** Where the bytes came from, after redirects. */
  url: URL;
  /** The request is over: its timers stop. */
  done(): void;
  /** A failure of the body as the SDK's error (timeout, abort, connection). */
  fail(error: unknown): Error;
  /** Drop the body unread. */
  release(): void;
}

/** Per-call settings of a streamed GET: its attempt number under the read retries, its body's idle limit. */
export type StreamOptions = Pick<RequestOptions, 'headers' | 'timeout' | 'signal'> & {
  /** Milliseconds the body may send nothing before it is given up; `timeout` when unset. */
  idleTimeout?: number | undefined;
  /** Which try of the call this is, for the trace (1 when unset). */
  attempt?: number | undefined;
};

/**
 * @internal The one port of calls the workflows of lib/ take: the endpoints of `/v1/videos`, implemented by the
 * resource over the transport. What else a workflow knows of the client is its {@link JobContext}.
 */
export interface Endpoints {
  /** Open (and, unless `validate: false`, check) a create's inputs. */
  openCreate(params: VideoCreateParams, options: Pick<CreateOptions, 'validate'>): Promise<CreateUpload>;
  /** GET one video, with the response it came in (its headers may hint when to poll next). */
  retrieve(id: string, options?: RequestOptions): Promise<Answer<Video>>;
  /** One GET of video `id`'s content (no retries), its redirect followed and the key kept off the file host. */
  openContent(id: string, options: StreamOptions): Promise<StreamedAnswer>;
  /** One GET of a file address an earlier answer led to (a resume), without the key. */
  openFile(url: URL, options: StreamOptions): Promise<StreamedAnswer>;
  /** The signed address of video `id`'s file, its redirect resolved (with the read retries). */
  contentURL(id: string, options: RequestOptions): Promise<Answer<string>>;
  /** Run `attempt` (numbered from 1) under the read retries, with the call's `maxRetries`, `maxRetryDelay` and `signal`. */
  retryingReads<R>(options: RequestOptions, attempt: (number: number) => Promise<R>): Promise<R>;
}

/**
 * @internal The client's state the workflows of lib/ work in, beside the {@link Endpoints} they call: its logger,
 * its request defaults a workflow reads itself, its one limit on jobs running at once, its one create-rate gate and
 * its media limits.
 */
export interface JobContext {
  readonly logger: Logger;
  /** The client's `timeout`: a poll's is cut to what is left of its wait. */
  readonly timeout: number;
  /** The client's `maxRetryDelay`: the longest `Retry-After` waited for when a call sets none. */
  readonly maxRetryDelay: number;
  /** The client's one limit on jobs running at once. */
  readonly limiter: ConcurrencyLimiter;
  /** The client's media limits. */
  readonly limits: { maxAudioSeconds: number };
  /** The create rate declared (option or environment), if any. */
  readonly createRate: CreateRate | undefined;
  /** The client's one gate in front of creates: every create the job runner sends waits there (declared or learned rate). */
  readonly createGate: CreateGate;
  /** The billing step, in seconds: each job is billed its length rounded up to a multiple of it. */
  readonly billingIncrementSeconds: number;
}
