/**
 * What a user's first type errors must be. Compiled by test/e2e/types.test.ts against the built package (and by
 * `npm run typecheck` against the sources):
 * each `@ts-expect-error` line must be an error, or tsc reports the directive as unused and the suite fails.
 * Nothing here runs.
 */
import {
  type AvatarVideo,
  type AvatarVideoError,
  type CreateAndWaitOptions,
  type GenerateBatchOptions,
  type GenerateLongOptions,
  type GenerateOptions,
  type ImageToVideoParams,
  InvalidArgumentError,
  type MediaValidationError,
  OutputPathError,
  type PollResult,
  type PollState,
  UploadInputError,
  type Video,
  type VideoCreateParams,
  type VideoListParams,
  type VideoStatus,
  type VideoToVideoParams,
  type WaitOptions,
} from 'avatar-video';
import { validateCreateParams } from 'avatar-video/media';

declare const client: AvatarVideo;
declare const video: Video;
declare const stream: import('node:stream').Readable;

// --- create parameters: exactly one of image_reference / video_reference -----------------------------

export const fromImage: VideoCreateParams = { audio_reference: 'talk.wav', image_reference: 'me.png' };
export const fromVideo: VideoCreateParams = { audio_reference: stream, video_reference: 'me.mp4', model: 'service-avatar-x' };
export const narrowed: ImageToVideoParams | VideoToVideoParams = fromImage;

// @ts-expect-error neither visual reference
export const neither: VideoCreateParams = { audio_reference: 'talk.wav' };
// @ts-expect-error both visual references
export const both: VideoCreateParams = { audio_reference: 'talk.wav', image_reference: 'me.png', video_reference: 'me.mp4' };
// @ts-expect-error no audio
export const silent: VideoCreateParams = { image_reference: 'me.png' };

export async function everyMethodTakesTheUnion(): Promise<void> {
  // @ts-expect-error create: neither
  await client.videos.create({ audio_reference: 'talk.wav' });
  // @ts-expect-error createAndWait: both
  await client.videos.createAndWait({ audio_reference: 'talk.wav', image_reference: 'me.png', video_reference: 'me.mp4' });
  // @ts-expect-error generate: neither
  await client.videos.generate({ audio_reference: 'talk.wav' }, { output: 'out.mp4' });
  // @ts-expect-error generateLong: both
  await client.videos.generateLong({ audio_reference: 'a.wav', image_reference: 'i.png', video_reference: 'v.mp4' }, { output: 'o.mp4' });
  // @ts-expect-error validateCreateParams: neither
  await validateCreateParams({ audio_reference: 'talk.wav' });
}

// --- Video lists the spec's fields; VideoStatus completes the four and accepts others ------------------

export const status: VideoStatus = video.status;
export const progress: number | null | undefined = video.progress;
export const code: string | undefined = video.error?.code;
// @ts-expect-error a misspelt field does not compile
export const misspelt = video.staus;
// @ts-expect-error nor does a field the spec does not have
export const invented = video.url;
// A field the service adds later is kept at runtime and read with a cast.
export const later = (video as Record<string, unknown>).new_field;

export const future: VideoStatus = 'SCHEDULED';
// The five known statuses (the spec's four, and QUEUED from the service's docs) are literal members of the union
// (what editors complete), not just `string`.
type KnownStatus = Extract<VideoStatus, 'QUEUED' | 'PROCESSING' | 'COMPLETE' | 'FAILED' | 'CANCELLED'>;
export const known: KnownStatus[] = ['QUEUED', 'PROCESSING', 'COMPLETE', 'FAILED', 'CANCELLED'];
// @ts-expect-error a known status is one of the five literals
export const notKnown: KnownStatus = 'SCHEDULED';
// share_link_url, outside the spec, is typed as an optional field: read without a cast.
export const shareLink: string | null | undefined = video.share_link_url;

// --- one meaning per option name ---------------------------------------------------------------------

export const wait: WaitOptions = { waitTimeout: 600_000, pollInterval: 2_000 };
// @ts-expect-error the wait's deadline is `waitTimeout`; `timeout` is one request's time
export const oldWait: WaitOptions = { timeout: 600_000 };
// A large video reference gets a longer upload timeout while the wait keeps its own deadline.
export const createAndWait: CreateAndWaitOptions = {
  timeout: 300_000,
  maxRetryDelay: 5_000,
  headers: { 'x-trace': '1' },
  waitTimeout: 900_000,
};
// @ts-expect-error the job runner alone sends a refused create again: createAndWait takes no maxRetries (refused at run time too)
export const createAndWaitRetries: CreateAndWaitOptions = { maxRetries: 0 };
// generate's maxRetries is its download's.
export const generate: GenerateOptions = { output: 'out.mp4', timeout: 300_000, waitTimeout: 900_000, maxRetries: 0 };
export const long: GenerateLongOptions = { output: 'long.mp4', timeout: 300_000, waitTimeout: 900_000, concurrency: 2 };
// One budget name on every method that makes videos; the old names still compile while they are deprecated.
export const jobBudgets: [CreateAndWaitOptions, GenerateOptions, GenerateLongOptions, GenerateBatchOptions] = [
  { maxJobAttempts: 1 },
  { output: 'out.mp4', maxJobAttempts: 5 },
  { output: 'long.mp4', maxJobAttempts: 2, maxSegmentAttempts: 2 },
  { outputDir: 'out', maxJobAttempts: 2, maxAttempts: 2, concurrency: 4, maxConcurrency: 4 },
];
// @ts-expect-error a budget is a number of jobs
export const wordyBudget: GenerateOptions = { output: 'out.mp4', maxJobAttempts: 'three' };

// --- list parameters: the service's after, limit and order -------------------------------------------

export const listed: VideoListParams = { after: 'vid_1', limit: 100, order: 'asc' };
// @ts-expect-error order is 'asc' or 'desc'
export const shouted: VideoListParams = { order: 'ASC' };
// @ts-expect-error a misspelt parameter does not compile (it would be sent and ignored)
export const misspeltParam: VideoListParams = { limt: 10 };
export const moreMayFollow: Promise<boolean | null> = client.videos.list().then((page) => page.has_more);

// --- every error the SDK throws is an AvatarVideoError ---------------------------------------------------

export const uploadError: AvatarVideoError = new UploadInputError('not a file');
export const outputError: AvatarVideoError = new OutputPathError('/tmp/x.mp4', 'is_folder', '/tmp/x.mp4 is a folder');

// --- an error after a create names the job: read it, never set it -----------------------------------------

export const jobOf = (error: AvatarVideoError): string | undefined => error.videoId;
export function setJob(error: AvatarVideoError): void {
  // @ts-expect-error videoId is readonly
  error.videoId = 'vid_1';
}

export const argumentError: AvatarVideoError = new InvalidArgumentError('limit', 'limit must be a whole number from 1 to 100');

// --- a type met inside a value (an error's details, a progress report) is named under the client class ---------

export const issueCodes = (error: MediaValidationError): AvatarVideo.MediaIssueCode[] => error.issues.map((issue) => issue.code);
export const firstIssue = (error: MediaValidationError): AvatarVideo.MediaValidationIssue | undefined => error.issues[0];

// --- a poll step: the next delay is a number exactly while the job is not done ------------------------------

export const nextDelay = (step: PollResult): number => (step.done ? 0 : step.nextPollAfterMs);
// @ts-expect-error a done step has no next poll
export const doneDelay = (step: PollResult & { done: true }): number => step.nextPollAfterMs;
export const restored: Promise<PollResult> = client.videos.poll(video, JSON.parse('{}') as PollState, { pollInterval: 1_000 });

// One vocabulary: each progress callback by its own name and argument, on every method that takes it.
export const uploadOn: CreateAndWaitOptions = { onUploadProgress: ({ bytes, total }: AvatarVideo.UploadProgress) => bytes / total };
export const runOn: GenerateLongOptions = { output: 'o.mp4', onRunProgress: ({ phase }) => phase };
export const batchRunOn: GenerateBatchOptions = { outputDir: 'o', onRunProgress: ({ done }) => done, onUploadProgress: () => {} };
export const saved: GenerateOptions = { output: 'o.mp4', onDownloadProgress: ({ bytes }) => bytes };
// @ts-expect-error a run's progress is not a video: onRunProgress gets LongProgress
export const wrongRun: GenerateLongOptions = { output: 'o.mp4', onRunProgress: (video: Video) => video.id };
// @ts-expect-error the upload's total is always known (its Content-Length)
export const noTotal = (p: AvatarVideo.UploadProgress): undefined => p.total;
