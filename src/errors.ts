/**
 * Every error the SDK throws extends {@link AvatarVideoError}.
 *
 * - {@link APIError} and its subclasses: the service answered with an HTTP error.
 * - {@link APIConnectionError}, {@link APIConnectionTimeoutError}, {@link APIUserAbortError}: no usable answer.
 * - {@link ResponseValidationError}: the service answered 2xx with a body that breaks the contract.
 * - Job outcomes ({@link VideoFailedError}, ...) and local checks (`MediaValidationError`,
 *   {@link InvalidArgumentError}) stay outside the API hierarchy, because no HTTP request failed.
 *
 * Nothing here ever holds the API key: request headers are never stored, response headers are redacted.
 */

export class AvatarVideoError extends Error {
  override name = 'AvatarVideoError';
  /**
   * Set when the error happened after a video job was created (the job is paid for): the job's id, also named in
   * the message with the call that goes on with it. Absent when no job was created.
   */
  declare readonly videoId?: string;
}

/** Body of an error response, parsed tolerantly: JSON object, plain text, or an HTML page from a proxy. */
export type ErrorBody = unknown;

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
  type?: string;
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
  readonly body: ErrorBody;
  /**
   * Each problem a validation body named (a `detail` array, as a 422 carries), in the body's order;
   * the message lists the first 10. Empty when the body named none (including a `detail` that is a string).
   */
  readonly details: APIErrorDetail[];

  constructor(init: {
    status: number;
    message: string;
    code?: string | undefined;
    requestId?: string | undefined;
    headers: Record<string, string>;
    body: ErrorBody;
    details?: APIErrorDetail[] | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
    this.details = init.details ?? [];
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      headers: this.headers,
      body: this.body,
      details: this.details,
      ...(this.videoId !== undefined && { videoId: this.videoId }),
    };
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

/** The request never produced a usable response: DNS, refused, reset, TLS. `cause` holds the original failure. */
export class APIConnectionError extends AvatarVideoError {
  override name = 'APIConnectionError';
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An attempt took longer than `timeout`, including a body that stalled after the headers. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(message = 'Request timed out.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The caller's `AbortSignal` fired. `cause` is the signal's reason. */
export class APIUserAbortError extends AvatarVideoError {
  override name = 'APIUserAbortError';
  constructor(message = 'Request was aborted.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

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

/** What is wrong with a destination, as {@link OutputPathError.code}. */
/** Why a destination was refused: no path given, its folder missing, something else than a folder in its place, not writable, or the path is a folder. */
export type OutputPathProblem = 'invalid' | 'folder_missing' | 'not_a_folder' | 'folder_not_writable' | 'is_folder';

/**
 * A destination the SDK cannot save to: its folder is missing, not a folder or not writable, or the path is a
 * folder itself. Found before any job was created, so nothing was paid for.
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
    super(`Cannot save to ${path}: ${reason}. No job was created.`, options);
    this.path = path;
    this.code = code;
    this.reason = reason;
  }
}

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
