import { Client } from './client.js';
import type {
  APIErrorDetail,
  BatchProblem,
  ConnectionProblem,
  ErrorOrigin,
  FailedSegment,
  MediaIssueCode,
  MediaValidationIssue,
  OutputPathProblem,
} from './errors.js';
import type { CreateRateState } from './internal/create-gate.js';
import type { CreateRate } from './internal/create-rate.js';
import type { LogLevel } from './internal/logger.js';
import type { BatchItemError, BatchProgress } from './lib/batch/types.js';
import type { DownloadProgress } from './lib/download.js';
import type { UploadProgress } from './lib/endpoints.js';
import type { LongProgress } from './lib/long/generate-long.js';
import type { PlanAssumptions, PlannedItem, PlannedJob, PlanOptions, VideoPlan } from './lib/plan/plan.js';
import type { WaitProgress } from './lib/wait.js';
import { type ClientOptions, platform } from './platform/node.js';
import { Videos } from './resources/file-videos.js';
import type { VideoCalls } from './resources/videos.js';
import type { VideoError } from './schemas.js';

/**
 * The avatar video API client, for Node, Bun and Deno.
 *
 * @example
 * const client = new AvatarVideo(); // reads AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL
 * const { path } = await client.videos.generate({ audio_reference: './speech.wav', image_reference: './me.png' }, { output: 'me.mp4' });
 */
export class AvatarVideo extends Client<ClientOptions, Videos> {
  constructor(options: ClientOptions = {}) {
    super(platform, options, (parts) => new Videos(parts));
  }
}

/**
 * Types users meet inside a value they already hold (an error's details, a progress callback's argument, a part of a
 * result or of an option, the classes `AvatarVideo` and `Videos` extend) rather than build or pass whole: named as
 * `AvatarVideo.MediaValidationIssue`, so the entry's own names stay the ones users import. `videos.plan`'s result and
 * options and the create rate's shape are named here too (`AvatarVideo.VideoPlan`, `AvatarVideo.PlanOptions`,
 * `AvatarVideo.CreateRate`): the entry is at its cap of names.
 */
export declare namespace AvatarVideo {
  export type {
    APIErrorDetail,
    BatchItemError,
    BatchProblem,
    BatchProgress,
    Client,
    ConnectionProblem,
    CreateRate,
    CreateRateState,
    DownloadProgress,
    ErrorOrigin,
    FailedSegment,
    LogLevel,
    LongProgress,
    MediaIssueCode,
    MediaValidationIssue,
    OutputPathProblem,
    PlanAssumptions,
    PlannedItem,
    PlannedJob,
    PlanOptions,
    UploadProgress,
    VideoCalls,
    VideoError,
    VideoPlan,
    WaitProgress,
  };
}

export default AvatarVideo;
export type { JobConcurrency, MediaLimits, RequestOptions } from './client.js';
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
export type { DownloadOptions, DownloadResult } from './lib/download.js';
export type { CreateAndWaitOptions, GenerateOptions, GenerateResult } from './lib/generate.js';
export type { GenerateLongOptions, GenerateLongResult } from './lib/long/generate-long.js';
export type { ImageToVideoParams, VideoCreateParams, VideoToVideoParams } from './lib/media/prepare.js';
export type { PollOptions, PollResult, PollState } from './lib/poll.js';
export type { WaitOptions } from './lib/wait.js';
export { type VideoListParams, VideoPage, VideoPagePromise } from './pagination.js';
export type { ClientOptions, VideoContent } from './platform/node.js';
export { Videos } from './resources/file-videos.js';
export type { ContentURLOptions, CreateOptions } from './resources/videos.js';
export { VIDEO_MODELS, VIDEO_STATUSES, type Video, type VideoModel, type VideoStatus } from './schemas.js';
export { NamedUpload, toFile, type Uploadable } from './uploads.js';
export { VERSION } from './version.js';
