/**
 * The type contract of `avatar-video/media` with the main entry's types, as test/types/public-api.ts is for the
 * main entry (compiled by test/e2e/types.test.ts against the build, and by `npm run typecheck` against the sources).
 * Nothing here runs.
 */
import { MediaValidationError, toFile, type VideoCreateParams } from 'avatar-video';
import {
  type AudioSegment,
  type JoinVideosOptions,
  type JoinVideosResult,
  joinVideos,
  LIMITS,
  type MediaFormat,
  type MediaInfo,
  type MediaLimits,
  type ProbeOptions,
  probeMedia,
  type SplitAudioOptions,
  type SplitAudioResult,
  splitAudio,
  type ValidatedCreate,
  type ValidateOptions,
  validateCreateParams,
} from 'avatar-video/media';

declare const params: VideoCreateParams;

// The main entry's upload types go in: a path, bytes, or data named with toFile.
export const probed: Promise<MediaInfo> = probeMedia(toFile(new Uint8Array(8), 'talk.wav'), { fieldName: undefined });
export const format: Promise<MediaFormat> = probeMedia('talk.wav').then((info) => info.format);
export const validated: Promise<ValidatedCreate> = validateCreateParams(params, { maxAudioSeconds: LIMITS.maxAudioSeconds });
export const split: Promise<SplitAudioResult> = splitAudio('talk.wav', { maxSegmentSeconds: undefined, outputDir: undefined });
export const segments: Promise<AudioSegment[]> = split.then((result) => result.segments);
export const joined: Promise<JoinVideosResult> = joinVideos(['a.mp4', 'b.mp4'], 'joined.mp4', { signal: undefined });

// Options are the types the helpers take.
export const probeOptions: ProbeOptions = { fieldName: 'audio_reference' };
export const validateOptions: ValidateOptions = { maxAudioSeconds: 300 };
export const splitOptions: SplitAudioOptions = { maxSegmentSeconds: 60 };
export const joinOptions: JoinVideosOptions = { metadata: undefined };

// What validation throws is the main entry's class.
export const refusal = (error: unknown): string[] => (error instanceof MediaValidationError ? error.issues.map((issue) => issue.code) : []);

// @ts-expect-error LIMITS is read-only
LIMITS.maxAudioSeconds = 1;
// @ts-expect-error neither visual reference
validateCreateParams({ audio_reference: 'talk.wav' });
// @ts-expect-error joinVideos takes paths, not bytes
joinVideos([new Uint8Array(8)], 'joined.mp4');
// ValidateOptions is MediaLimits (the client's `limits`) under its old name: one type, either way round.
export const limitsAsValidate: ValidateOptions = {} as import('avatar-video').MediaLimits;
// avatar-video/media's MediaLimits is the main entry's: the options of validateCreateParams, the client's `limits`.
export const mediaLimits: MediaLimits = { maxAudioSeconds: 300 };
export const clientLimits: import('avatar-video').ClientOptions['limits'] = mediaLimits;
export const validatedWithLimits: Promise<ValidatedCreate> = validateCreateParams(params, mediaLimits);
