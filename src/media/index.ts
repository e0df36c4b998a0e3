/**
 * `avatar-video/media`: the SDK's local media helpers, usable without a client: read a file's format and length
 * (`probeMedia`), check create parameters against the service's limits before paying for a job
 * (`validateCreateParams`, `LIMITS`, `MediaLimits`), split long audio just under multiples of the billing step, at
 * quiet points within reach (`splitAudio`), and join MP4 segments without re-encoding (`joinVideos`).
 *
 *   import { probeMedia, validateCreateParams } from 'avatar-video/media';
 *   const { durationSeconds } = await probeMedia('talk.wav');
 *
 * The errors they throw (`MediaValidationError`, `JoinError`, ...) and `toFile` are the main entry's: the build
 * imports them from `avatar-video` by name, so `instanceof` and `toFile` work as with the client.
 */
export { type JoinVideosOptions, type JoinVideosResult, joinVideos } from '../lib/long/join-videos.js';
export { type AudioSegment, type SplitAudioOptions, type SplitAudioResult, splitAudio } from '../lib/long/split-audio.js';
export { type ProbeOptions, probeMedia } from '../lib/media/probe.js';
export type { MediaFormat, MediaInfo } from '../lib/media/types.js';
export {
  LIMITS,
  type MediaLimits,
  type ValidatedCreate,
  type ValidateOptions,
  validateCreateParams,
} from '../lib/media/validate.js';
