// avatar-video for Cloudflare Workers, Vercel Edge and browsers (the workerd, worker, edge-light and browser export
// conditions, and avatar-video/web): requests over fetch, inputs as bytes, no `node:` module. What needs a filesystem
// is Node's, Bun's and Deno's only (the README's Runtimes table).
import { AvatarVideo } from './client.js';

export { AvatarVideo };
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
export type { Logger } from '../internal/logger.js';
export type { RequestOptions } from '../internal/request-options.js';
export type { CreateOptions, UploadProgress } from '../lib/endpoints.js';
export type { CreateAndWaitOptions } from '../lib/generate.js';
export type { MediaLimits } from '../lib/media/validate.js';
export type { PollOptions, PollResult, PollState } from '../lib/poll.js';
export type { WaitOptions, WaitProgress } from '../lib/wait.js';
export { type VideoListParams, VideoPage, VideoPagePromise } from '../pagination.js';
export { VIDEO_MODELS, VIDEO_STATUSES, type Video, type VideoError, type VideoModel, type VideoStatus } from '../schemas.js';
export { VERSION } from '../version.js';
export type { ClientOptions } from './client.js';
export type { ImageToVideoParams, VideoCreateParams, VideoToVideoParams, WebUploadable } from './params.js';
export type { VideoContent } from './runtime/content.js';
export { Videos } from './videos.js';
