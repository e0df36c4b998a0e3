/**
 * The base class of every error the SDK throws. The README's errors table lists them with when each is thrown and
 * whether it is retried. The families:
 *
 * - The service answered with an HTTP error: {@link APIError} and one subclass per status.
 * - No usable answer: {@link APIConnectionError}, {@link APIConnectionTimeoutError}, {@link APIUserAbortError}.
 * - A 2xx answer that breaks the contract: {@link ResponseValidationError}, {@link ResponseTooLargeError}.
 * - Inputs refused before any request, so nothing was paid for: {@link InvalidArgumentError},
 *   {@link OutputPathError}, {@link UploadInputError}, {@link MediaValidationError}, {@link BatchInputError}.
 * - How a job ended: {@link VideoFailedError}, {@link VideoCancelledError}, {@link WaitTimeoutError},
 *   {@link VideoNotReadyError}, {@link SegmentFailedError}. No HTTP request failed.
 * - Files the SDK saves or joins: {@link DownloadIntegrityError}, {@link JoinError}.
 *
 * Any of them thrown after a job was created carries that job's `videoId`. None of them ever holds the API key:
 * request headers are never stored, response headers are redacted.
 */
import { brandClasses, isInstance } from './internal/brand.js';
import { shorten } from './internal/shorten.js';
import type { Video } from './schemas.js';

export class AvatarVideoError extends Error {
  override name = 'AvatarVideoError';
  /**
   * Set when the error happened after a video job was created (the job is paid for): the job's id, also named in
   * the message with the call that goes on with it. Absent when no job was created.
   */
  declare readonly videoId?: string | undefined;

  /**
   * `{ name, message, ...the class's own public fields }` (with `videoId` when set), for `JSON.stringify` and
   * structured logs: an `Error`'s `message` is not an enumerable field, so without this JSON would drop it. Never
   * holds the key (no error stores it) or a signed query string.
   */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...(this as object) };
  }

  /**
   * `error instanceof VideoFailedError` holds for a VideoFailedError from any copy of this package. The ESM and
   * CommonJS builds are two copies with classes of their own, and an app that mixes the two loads both: so an SDK
   * class also matches an object whose prototype chain carries its brand. A subclass of your own matches as any
   * class does, by its prototype.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of `instanceof`, most often a subclass.
    return isInstance(this, value);
  }
}

/**
 * One problem named by a validation error body (FastAPI's `{"detail": [{loc, msg, type}]}`).
 * For example `{ location: 'body.audio_reference', message: 'Field required', type: 'missing' }`.
 */
export interface APIErrorDetail {
  /** Where the problem is: the `loc` path joined with `.`, e.g. `body.model` or `query.limit` (`''` when the body named none). */
  location: string;
  /** What is wrong, as the service said it, e.g. `Field required`. */
  message: string;
  /** Machine-readable kind of problem, e.g. `missing` or `literal_error`, when the body had one. */
  type?: string | undefined;
}

export class APIError extends AvatarVideoError {
  override name = 'APIError';
  /** HTTP status code of the response. */
  readonly status: number;
  /** Machine-readable code from the error body, when the body had one. */
  readonly code: string | undefined;
  /** Value of `x-request-id` (or `request-id`), for support requests. */
  readonly requestId: string | undefined;
  /** Response headers, with credential-bearing ones replaced by `[redacted]`. */
  readonly headers: Record<string, string>;
  /** The parsed response body (JSON value, or text truncated to 2 KB). */
  readonly body: unknown;
  /**
   * Each problem a validation body named (a `detail` array, as a 422 carries), in the body's order;
   * the message lists the first 10. Empty when the body named none (including a `detail` that is a string).
   */
  readonly details: APIErrorDetail[];
  /**
   * Who answered: `'api'` (the base URL's server) or `'file-host'` (the server a content redirect pointed to, where
   * the video's file lives). A file host's error is always a plain `APIError`, never a status subclass such as
   * `NotFoundError`: its `code` is `'file_not_found'` (404), `'file_expired'` (410) or `'file_forbidden'` (403),
   * its `body` is undefined (the host's error page is dropped).
   */
  readonly origin: ErrorOrigin;
  /** The answering server's host (`URL.host`, e.g. `api.example.com` or `127.0.0.1:4010`): never a path or query. */
  readonly host: string;

  constructor(init: {
    status: number;
    message: string;
    code?: string | undefined;
    requestId?: string | undefined;
    headers: Record<string, string>;
    body: unknown;
    details?: APIErrorDetail[] | undefined;
    origin?: ErrorOrigin | undefined;
    host?: string | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
    this.details = init.details ?? [];
    this.origin = init.origin ?? 'api';
    this.host = init.host ?? '';
  }
}

/** 400: the request was malformed (both or neither visual reference, an unknown field, a wrong format). */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: the API key is missing or wrong. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 403: the key may not do this; video references are a gated preview. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: no such video. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 409: the video is not in a state that allows this (content before COMPLETE). */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/**
 * 422: the input was refused: a part missing, a value outside what the service accepts (a model name, a list
 * `limit` above 100), a duration out of range. `details` names each problem when the body listed them.
 */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
/** 429: slow down. `retryAfter` holds the server's hint in milliseconds when it sent one. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** Milliseconds the server asked to wait (from `Retry-After`), if it said. */
  retryAfter: number | undefined;
}
/** 5xx: the service failed. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** Which server an error is about: the API (the base URL's) or the file host a content redirect pointed to. */
export type ErrorOrigin = 'api' | 'file-host';

/**
 * Why a connection failed, on {@link APIConnectionError.code}:
 * - `connection`: refused, reset, DNS, or dropped mid-answer (retried).
 * - `timeout`: no answer (or no data of a body) in time; see {@link APIConnectionTimeoutError} (retried).
 * - `tls_certificate`: the server's certificate is not trusted (self-signed, an unknown CA, expired, another
 *   name). Not retried: trust its CA (`NODE_EXTRA_CA_CERTS`, or a CA on the dispatcher).
 * - `tls_protocol`: the server does not speak TLS there (an `https://` address at a plain-http port). Not retried.
 * - `proxy_auth`: the proxy answered 407: it wants credentials, in the proxy URL. Not retried.
 * - `proxy_refused`: the proxy refused the target (403 or another answer): that host or port. Not retried.
 * - `proxy_unreachable`: the proxy itself could not be reached (retried).
 */
export type ConnectionProblem =
  | 'connection'
  | 'timeout'
  | 'tls_certificate'
  | 'tls_protocol'
  | 'proxy_auth'
  | 'proxy_refused'
  | 'proxy_unreachable';

/**
 * The request never produced a usable response: DNS, refused, reset, TLS, a proxy. `cause` holds the original
 * failure; `code` says which kind, `origin` and `host` which server the SDK was trying to reach (not the proxy).
 */
export class APIConnectionError extends AvatarVideoError {
  override name = 'APIConnectionError';
  /** Why the connection failed; some kinds are never retried (see {@link ConnectionProblem}). */
  readonly code: ConnectionProblem;
  /** Which server the request was for: `'api'` or `'file-host'` (the address a content redirect pointed to). */
  readonly origin: ErrorOrigin;
  /** The host of the server the request was for (`URL.host`; the target, not the proxy), or `''` when unknown. */
  readonly host: string;
  constructor(
    message = 'Connection error.',
    options?: { origin?: ErrorOrigin | undefined; host?: string | undefined; code?: ConnectionProblem | undefined; cause?: unknown },
  ) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = options?.code ?? 'connection';
    this.origin = options?.origin ?? 'api';
    this.host = options?.host ?? '';
  }
}

/** An attempt took longer than `timeout`, or a body sent nothing for its idle limit. `code` is `'timeout'`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(message = 'Request timed out.', options?: { origin?: ErrorOrigin | undefined; host?: string | undefined; cause?: unknown }) {
    super(message, { ...options, code: 'timeout' });
  }
}

/** The caller's `AbortSignal` fired. `cause` is the signal's reason. */
export class APIUserAbortError extends AvatarVideoError {
  override name = 'APIUserAbortError';
  constructor(message = 'Request was aborted.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A 2xx response whose body does not match the spec (a required field missing or of the wrong type). */
export class ResponseValidationError extends AvatarVideoError {
  override name = 'ResponseValidationError';
  /** The raw parsed body that failed validation. */
  readonly body: unknown;
  readonly requestId: string | undefined;
  /** Where the body broke the contract, as `path: problem` strings. */
  readonly problems: string[];
  constructor(init: { message: string; body: unknown; requestId: string | undefined; problems: string[] }) {
    super(init.message);
    this.body = init.body;
    this.requestId = init.requestId;
    this.problems = init.problems;
  }
}

/** A response body larger than the SDK reads (a JSON answer over 8 MiB). The connection was dropped unread. */
export class ResponseTooLargeError extends AvatarVideoError {
  override name = 'ResponseTooLargeError';
  /** The most bytes the SDK reads for this kind of body. */
  readonly limit: number;
  readonly requestId: string | undefined;
  constructor(message: string, init: { limit: number; requestId: string | undefined }) {
    super(message);
    this.limit = init.limit;
    this.requestId = init.requestId;
  }
}

// --- Inputs refused before any request: nothing was uploaded or paid for ---

/** A method was called with an argument it cannot send, e.g. `list({ limit: 500 })`. Nothing was requested. */
export class InvalidArgumentError extends AvatarVideoError {
  override name = 'InvalidArgumentError';
  /** The argument at fault, e.g. `limit`. */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(message);
    this.argument = argument;
  }
}

/** Why a destination was refused: no path given, its folder missing, something else than a folder in its place, not writable, or the path is a folder. */
export type OutputPathProblem = 'invalid' | 'folder_missing' | 'not_a_folder' | 'folder_not_writable' | 'is_folder';

/**
 * A destination the SDK cannot save to: its folder is missing, not a folder or not writable, the path is a
 * folder itself, or no file can have it (`invalid`: a NUL byte, a name too long for the file system). Found before
 * any job was created, so nothing was paid for.
 */
export class OutputPathError extends AvatarVideoError {
  override name = 'OutputPathError';
  /** The absolute path refused (the folder itself, for a work folder). */
  readonly path: string;
  readonly code: OutputPathProblem;
  /** What is wrong and what to do, e.g. `the folder /tmp/x does not exist; create it first, or save elsewhere`. */
  readonly reason: string;
  /** `cause`: the system error, when one said what is wrong (a folder that could not be made). */
  constructor(path: string, code: OutputPathProblem, reason: string, options?: { cause?: unknown }) {
    super(`Cannot save to ${shorten(path)}: ${reason}. No job was created.`, options);
    this.path = path;
    this.code = code;
    this.reason = reason;
  }
}

/** An input that cannot be an upload at all: a remote URL, a number, a missing file, a stream that failed. */
export class UploadInputError extends AvatarVideoError {
  override name = 'UploadInputError';
}

/** Codes of {@link MediaValidationIssue}. */
export type MediaIssueCode =
  | 'missing_audio'
  | 'missing_visual_reference'
  | 'multiple_visual_references'
  | 'unknown_field'
  | 'unsupported_format'
  | 'unreadable_media'
  | 'duration_out_of_range';

/** One problem found by local validation. */
export interface MediaValidationIssue {
  /** The create parameter it concerns: `audio_reference`, `image_reference`, `video_reference`, `model`, or an unknown field's name. */
  field: string;
  code: MediaIssueCode;
  /** Names the file, what was found and what is allowed. */
  message: string;
}

/**
 * Local checks found problems before anything was uploaded. `issues` lists every problem at once.
 * Not an `APIError`: no request was made.
 */
export class MediaValidationError extends AvatarVideoError {
  override name = 'MediaValidationError';

  constructor(readonly issues: MediaValidationIssue[]) {
    super(
      issues.length === 1
        ? (issues[0]?.message ?? 'Invalid media.')
        : `${issues.length} problems with the inputs:\n${issues.map((issue) => `- ${issue.message}`).join('\n')}`,
    );
  }
}

/** One thing wrong with a batch item, found before any job was created. */
export interface BatchProblem {
  /** Position of the item in the input, from 0. */
  index: number;
  /** The item's key, when it has a usable one. */
  key: string | undefined;
  /** The create parameter concerned, when there is one. */
  field?: string | undefined;
  code: string;
  message: string;
}

/** Some batch items are unusable; nothing was created. `problems` lists every one, not just the first. */
export class BatchInputError extends AvatarVideoError {
  override name = 'BatchInputError';

  constructor(readonly problems: BatchProblem[]) {
    const shown = problems.slice(0, 20).map((p) => `- ${p.key !== undefined ? `${p.key}: ` : `item ${p.index}: `}${p.message}`);
    const more = problems.length > shown.length ? [`- and ${problems.length - shown.length} more`] : [];
    super(`${problems.length} problem(s) with the batch items; nothing was created:\n${[...shown, ...more].join('\n')}`);
  }
}

// --- How a job ended (none is an APIError: every request succeeded, the job ended badly or not yet) ---

const RATE_LIMIT_CODE = /rate.?limit/i;

/** The job ended FAILED. `code` and `message` come from `video.error`. */
export class VideoFailedError extends AvatarVideoError {
  override name = 'VideoFailedError';
  readonly video: Video;
  /** Machine-readable reason from `video.error.code`, when the service gave one. */
  readonly code: string | undefined;
  /** True when `code` names a rate limit: the job may succeed if created again later. */
  readonly isRateLimited: boolean;

  constructor(video: Video) {
    const code = video.error?.code || undefined;
    const reason = video.error?.message || 'no error message in the video';
    super(`Video ${video.id} failed${code ? ` (${code})` : ''}: ${reason}`);
    this.video = video;
    this.code = code;
    this.isRateLimited = code !== undefined && RATE_LIMIT_CODE.test(code);
  }
}

/** The job ended CANCELLED. */
export class VideoCancelledError extends AvatarVideoError {
  override name = 'VideoCancelledError';

  constructor(readonly video: Video) {
    super(`Video ${video.id} was cancelled.`);
  }
}

/** The wait's deadline passed before the job finished. The job itself keeps running on the service. */
export class WaitTimeoutError extends AvatarVideoError {
  override name = 'WaitTimeoutError';
  /** The last state seen, or undefined when no poll succeeded. `cause` then holds the last poll's error. */
  readonly video: Video | undefined;
  /** The wait's deadline that passed (the `waitTimeout` option), in milliseconds. */
  readonly waitTimeout: number;

  constructor(id: string, video: Video | undefined, waitTimeout: number, options?: { cause?: unknown }) {
    const seen = video ? `last seen ${video.status}${typeof video.progress === 'number' ? ` at ${video.progress}%` : ''}` : 'never seen';
    super(`Video ${id} did not finish within ${waitTimeout} ms (waitTimeout; ${seen}); the job keeps running.`, options);
    this.video = video;
    this.waitTimeout = waitTimeout;
  }
}

/** `download` was asked for a video that is not COMPLETE; no content request was sent. */
export class VideoNotReadyError extends AvatarVideoError {
  override name = 'VideoNotReadyError';

  constructor(readonly video: Video) {
    super(`Video ${video.id} is ${video.status}; it can be downloaded only once it is COMPLETE.`);
  }
}

/** What {@link SegmentFailedError} says about the segment that failed. */
export interface FailedSegment {
  /** Position of the segment, from 0. */
  index: number;
  startSeconds: number;
  durationSeconds: number;
  /** Jobs made for it that ended FAILED or CANCELLED. */
  attempts: number;
  /** The last job's id, its error code and message. */
  error: { jobId: string; code: string | undefined; message: string } | null;
}

/** A segment's jobs kept failing; earlier finished segments stay in the work folder for a rerun. */
export class SegmentFailedError extends AvatarVideoError {
  override name = 'SegmentFailedError';
  readonly segmentIndex: number;
  readonly jobId: string;
  readonly code: string | undefined;
  readonly workDir: string;
  constructor(segment: FailedSegment, workDir: string, cause: Error) {
    const end = (segment.startSeconds + segment.durationSeconds).toFixed(1);
    const last = `last job ${segment.error?.jobId}: ${segment.error?.code} ${segment.error?.message}`;
    super(
      `Segment ${segment.index} (${segment.startSeconds.toFixed(1)} s to ${end} s) failed ${segment.attempts} time(s); ${last}. Finished segments are kept in ${shorten(workDir)}: run the same call again to resume.`,
      { cause },
    );
    this.segmentIndex = segment.index;
    this.jobId = segment.error?.jobId ?? '';
    this.code = segment.error?.code;
    this.workDir = workDir;
  }
}

// --- Files the SDK saves or joins ---

/**
 * A download finished but the bytes are not a video the SDK can vouch for: a JSON, HTML or text answer,
 * a size that differs from the announced one, or an MP4 whose boxes do not add up. Nothing was saved.
 */
export class DownloadIntegrityError extends AvatarVideoError {
  override name = 'DownloadIntegrityError';
  /** What failed, e.g. `content type application/json is not a video`. */
  readonly reason: string;
  override readonly videoId: string;
  /** The file host's (or the API's) request id, when it sent one. */
  readonly requestId: string | undefined;
  constructor(init: { reason: string; videoId: string; requestId: string | undefined }) {
    super(
      `Download of video ${init.videoId} is not a valid MP4: ${init.reason}. Nothing was saved.${init.requestId ? ` [request id ${init.requestId}]` : ''}`,
    );
    this.reason = init.reason;
    this.videoId = init.videoId;
    this.requestId = init.requestId;
  }
}

/**
 * {@link joinVideos} refused its inputs: a file is not a readable MP4 with a video track, or its tracks cannot share
 * one MP4 with the first input's without re-encoding (a different codec, size, sample rate, channel count or decoder
 * configuration). Nothing was written.
 */
export class JoinError extends AvatarVideoError {
  override name = 'JoinError';
  /** The input that could not be joined. */
  readonly file: string;
  /** Each difference from the first input, e.g. `video size: 720x1280 (first input: 1280x720)`. Empty for unreadable files. */
  readonly differences: string[];

  constructor(file: string, message: string, differences: string[] = []) {
    super(message);
    this.file = file;
    this.differences = differences;
  }
}

// Each class is branded with the name it is exported under (internal/brand.ts). A class added above and not here
// would be recognised only by identity: test/error-brand.test.ts checks that none is.
brandClasses({
  AvatarVideoError,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  ResponseValidationError,
  ResponseTooLargeError,
  InvalidArgumentError,
  OutputPathError,
  UploadInputError,
  MediaValidationError,
  BatchInputError,
  VideoFailedError,
  VideoCancelledError,
  WaitTimeoutError,
  VideoNotReadyError,
  SegmentFailedError,
  DownloadIntegrityError,
  JoinError,
});

const classByStatus: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error class for an HTTP status: one subclass per status family, `APIError` for the rest. */
export function apiErrorClass(status: number): typeof APIError {
  if (status >= 500) return InternalServerError;
  return classByStatus[status] ?? APIError;
}
