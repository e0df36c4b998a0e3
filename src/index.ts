import { AvatarVideo } from './client.js';

export { AvatarVideo };
export default AvatarVideo;
export type { ClientOptions, JobConcurrency, MediaLimits, RequestOptions } from './client.js';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideoError,
  BadRequestError,
  BatchInputError,
  ConflictError,
  DownloadIntegrityError,
  InternalServerError,
  InvalidArgumentError,
  JoinError,
  MediaValidationError,
  NotFoundError,
  OutputPathError,
  PermissionDeniedError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  SegmentFailedError,
  UnprocessableEntityError,
  UploadInputError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
  WaitTimeoutError,
} from './errors.js';
// Classes users meet but never build (their constructors are private), exported as values: the bundled declarations
// declare a class as one even when exported with `export type`, so a type-only export would compile, then crash.
export { APIPromise, type APIResponse } from './internal/api-promise.js';
export type { Logger } from './internal/logger.js';
export type { BatchItem, BatchItemResult, BatchSummary, GenerateBatchOptions } from './lib/batch/types.js';
export type { VideoContent } from './lib/content.js';
export type { DownloadOptions, DownloadResult } from './lib/download.js';
export type { CreateAndWaitOptions, GenerateOptions, GenerateResult } from './lib/generate.js';
export type { GenerateLongOptions, GenerateLongResult } from './lib/long/generate-long.js';
export type { ImageToVideoParams, VideoCreateParams, VideoToVideoParams } from './lib/media/prepare.js';
export type { PollOptions, PollResult, PollState } from './lib/poll.js';
export type { WaitOptions } from './lib/wait.js';
export { type VideoListParams, VideoPage, VideoPagePromise } from './pagination.js';
export { type ContentURLOptions, type CreateOptions, Videos } from './resources/videos.js';
export { VIDEO_MODELS, VIDEO_STATUSES, type Video, type VideoModel, type VideoStatus } from './schemas.js';
export { NamedUpload, toFile, type Uploadable } from './uploads.js';
export { VERSION } from './version.js';
