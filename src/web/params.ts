import type { VideoModel } from '../schemas.js';

// The create parameters of the web entry: those of lib/media/prepare.ts with bytes for files. Declared again rather
// than made generic there: the published types of the web entry must not reach the Node entry's `Uploadable`, which
// names node:stream's Readable.

/** What a file of a create is given as on the web: bytes, never a path (there is no filesystem). */
export type WebUploadable = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

/** Create from a still image (`image_to_video`). */
export interface ImageToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: WebUploadable;
  /** Appearance image: JPEG or PNG. */
  image_reference: WebUploadable;
  /** Not with an image: send exactly one visual reference. */
  video_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/** Create from a video of the person (`video_to_video`), a gated preview. */
export interface VideoToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: WebUploadable;
  /** Appearance video: MP4 or MOV, 10 to 60 s. */
  video_reference: WebUploadable;
  /** Not with a video: send exactly one visual reference. */
  image_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/** Parameters of `videos.create` on the web: the driving audio and exactly one visual reference, as bytes. */
export type VideoCreateParams = ImageToVideoParams | VideoToVideoParams;
