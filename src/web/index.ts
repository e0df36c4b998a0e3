// avatar-video for Cloudflare Workers, Vercel Edge and browsers (the workerd, worker, edge-light and browser export
// conditions, and avatar-video/web): the one client over the web platform (requests over fetch, inputs as bytes, no
// `node:` module). What needs a filesystem is Node's, Bun's and Deno's only (the README's Runtimes table).
import { Client } from '../client.js';
import type { APIErrorDetail, ConnectionProblem, ErrorOrigin, MediaIssueCode, MediaValidationIssue } from '../errors.js';
import type { CreateRateState } from '../internal/create-gate.js';
import type { LogLevel } from '../internal/logger.js';
import { VideoCalls } from '../resources/videos.js';
import { type ClientOptions, platform, type VideoContent, type VideoCreateParams } from './platform.js';

/**
 * `client.videos` of the web entry: the endpoint methods of `/v1/videos` and the waits built on them, inputs as
 * bytes. What needs a filesystem (`download`, `generate`, `generateLong`, `generateBatch`) is Node's, Bun's and Deno's only.
 */
export class Videos extends VideoCalls<VideoCreateParams, VideoContent> {
  /** @internal Built by the client, which owns the transport (public here: the inherited one is protected). */
  constructor(parts: unknown) {
    super(parts);
  }
}

/**
 * The avatar video API client for Cloudflare Workers, Vercel Edge and browsers: requests go through `fetch`, inputs
 * are bytes (a `File` from a form, a `Uint8Array`, a stream), checked locally before any upload.
 *
 * @example
 * // A Worker
 * const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
 * const video = await client.videos.create({ audio_reference: form.get('audio') as File, image_reference: form.get('image') as File });
 * @example
 * // A page, through avatar-video/proxy mounted at /api/avatar
 * const client = new AvatarVideo({ baseURL: '/api/avatar' });
 */
export class AvatarVideo extends Client<ClientOptions, Videos> {
  constructor(options: ClientOptions) {
    super(platform, options, (parts) => new Videos(parts));
  }
}

/**
 * Types users meet inside a value they already hold (an error's details, an option's value, the classes `AvatarVideo`
 * and `Videos` extend) rather than build or pass whole: named as `AvatarVideo.MediaValidationIssue`, as on the Node entry.
 */
export declare namespace AvatarVideo {
  export type {
    APIErrorDetail,
    Client,
    ConnectionProblem,
    CreateRateState,
    ErrorOrigin,
    LogLevel,
    MediaIssueCode,
    MediaValidationIssue,
    VideoCalls,
  };
}

export default AvatarVideo;
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideoError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  InvalidArgumentError,
  MediaValidationError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  UnprocessableEntityError,
  UploadInputError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
  WaitTimeoutError,
} from '../errors.js';
export { APIPromise, type APIResponse } from '../internal/api-promise.js';
export type { JobConcurrency } from '../internal/concurrency-limiter.js';
export type { CreateRateState } from '../internal/create-gate.js';
export type { CreateRate } from '../internal/create-rate.js';
export type { Logger } from '../internal/logger.js';
export type { RequestOptions } from '../internal/request-options.js';
export type { CreateOptions, UploadProgress } from '../lib/endpoints.js';
export type { CreateAndWaitOptions } from '../lib/generate.js';
export type { MediaLimits } from '../lib/media/types.js';
export type { PollOptions, PollResult, PollState } from '../lib/poll.js';
export type { WaitOptions, WaitProgress } from '../lib/wait.js';
export { type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
export { VIDEO_MODELS, VIDEO_STATUSES, type Video, type VideoError, type VideoModel, type VideoStatus } from '../schemas.js';
export { VERSION } from '../version.js';
export type {
  ClientOptions,
  ImageToVideoParams,
  VideoContent,
  VideoCreateParams,
  VideoToVideoParams,
  WebUploadable,
} from './platform.js';
