import { platform } from '#platform';
import { checkOptions } from '../../internal/arguments.js';
import type { LocalSource } from '../../internal/byte-source.js';
import type { FilePart } from '../../internal/multipart-body.js';
import type { VideoModel } from '../../schemas.js';
import type { Uploadable } from '../../uploads.js';
import { FILE_FIELDS } from './fields.js';
import { FORMATS } from './types.js';

// The two shapes repeat the shared fields rather than extend a base interface: the published types name only
// what users can import.

/** Create from a still image (`image_to_video`). */
export interface ImageToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: Uploadable;
  /** Appearance image: JPEG or PNG. */
  image_reference: Uploadable;
  /** Not with an image: send exactly one visual reference. */
  video_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/** Create from a video of the person (`video_to_video`), a gated preview. */
export interface VideoToVideoParams {
  /** Driving audio: WAV or MP3, 1 to 60 s. */
  audio_reference: Uploadable;
  /** Appearance video: MP4 or MOV, 10 to 60 s. */
  video_reference: Uploadable;
  /** Not with a video: send exactly one visual reference. */
  image_reference?: undefined;
  /** Model name. @default 'service-avatar-x' (the service's default) */
  model?: VideoModel | undefined;
}

/**
 * Parameters of `videos.create` (and of every method that creates): the driving audio and exactly one
 * visual reference, `image_reference` or `video_reference`. Neither, or both, does not compile; from
 * JavaScript it fails local validation before any upload.
 */
export type VideoCreateParams = ImageToVideoParams | VideoToVideoParams;

export { FILE_FIELDS };

/** Inputs opened and ready to encode, plus what must be cleaned up afterwards. */
export interface PreparedCreate {
  files: FilePart[];
  fields: Record<string, string>;
  dispose(): Promise<void>;
}

/** The create parameters given to `method`, checked to be an object (each input is checked as it is opened). */
export function checkParams<T extends VideoCreateParams>(method: string, params: T): T {
  return checkOptions(method, params, "{ audio_reference: 'speech.wav', image_reference: 'me.png' }", 'params');
}

/** Dispose every opened input (removes spooled temporary files). */
export async function disposeAll(sources: Map<string, LocalSource>): Promise<void> {
  await Promise.all([...sources.values()].map((source) => source.dispose()));
}

/** Open every file input; on failure, close what was opened. */
export async function openInputs(params: Record<string, unknown>): Promise<Map<string, LocalSource>> {
  const sources = new Map<string, LocalSource>();
  try {
    for (const field of FILE_FIELDS) {
      const value = params[field];
      if (value !== undefined && value !== null) sources.set(field, await platform.openSource(value, field));
    }
  } catch (error) {
    await disposeAll(sources);
    throw error;
  }
  return sources;
}

/** Prepare without local checks (`validate: false`): names and types follow the file names. */
export async function prepareUnchecked(params: VideoCreateParams): Promise<PreparedCreate> {
  const sources = await openInputs(params as unknown as Record<string, unknown>);
  const files = [...sources].map(([field, source]) => {
    const extension = source.name.split('.').pop()?.toLowerCase();
    const format = Object.entries(FORMATS).find(([name, known]) => extension === name || extension === known.extension)?.[1];
    return { field, source, filename: source.name, contentType: format?.contentType ?? 'application/octet-stream' };
  });
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (!(FILE_FIELDS as readonly string[]).includes(key) && value !== undefined) fields[key] = String(value);
  }
  return { files, fields, dispose: () => disposeAll(sources) };
}
