import { MediaValidationError, type VideoCreateParams } from '../index.js';
import { validateForSegments } from '../lib/media/long-audio.js';
import type { MediaInfo, ValidatedCreate } from '../media/index.js';
import { admitInput, PathRefusedError } from './paths.js';

/** The file arguments of validate_inputs and generate_video. */
export interface MediaArgs {
  audio_path: string;
  image_path?: string | undefined;
  video_path?: string | undefined;
  model?: string | undefined;
}

export interface CheckedMedia {
  params: VideoCreateParams;
  checked: ValidatedCreate;
  /** The audio is longer than one job takes (only allowed with allowLong: generateLong makes it). */
  long: boolean;
}

/** A problem found in the inputs, as validate_inputs lists it. */
export type Issue = { field?: string | undefined; code: string; message: string };

/**
 * Admit the paths (roots.ts: before anything is read), then run the SDK's local checks, as videos.create does.
 * @throws MediaValidationError listing every issue, PathRefusedError for a path refused.
 */
export async function checkMedia(args: MediaArgs, roots: readonly string[], allowLong: boolean): Promise<CheckedMedia> {
  const visual = visualOf(args);
  const audio = await admitInput('audio_path', args.audio_path, roots);
  const reference = await admitInput(visual.field, visual.path, roots);
  const params = { audio_reference: audio, [visual.param]: reference, ...(args.model ? { model: args.model } : {}) } as VideoCreateParams;
  const hint = 'generate_video with allow_segments: true makes it as several jobs joined';
  return { params, ...(await validateForSegments(params, { allowLong, hint })) };
}

function visualOf(args: MediaArgs): { field: string; path: string; param: 'image_reference' | 'video_reference' } {
  if (args.image_path !== undefined && args.video_path !== undefined) {
    throw new MediaValidationError([
      { field: 'video_reference', code: 'multiple_visual_references', message: 'give image_path or video_path, not both' },
    ]);
  }
  if (args.image_path !== undefined) return { field: 'image_path', path: args.image_path, param: 'image_reference' };
  if (args.video_path !== undefined) return { field: 'video_path', path: args.video_path, param: 'video_reference' };
  throw new MediaValidationError([
    { field: 'image_reference', code: 'missing_visual_reference', message: 'give image_path (JPEG or PNG) or video_path (MP4 or MOV)' },
  ]);
}

/** The issues of a failed check, for validate_inputs' result (a refused path is one issue too). */
export function issuesOf(error: unknown): Issue[] | undefined {
  if (error instanceof MediaValidationError) return error.issues;
  if (error instanceof PathRefusedError) return [{ field: error.field, code: error.code, message: error.message }];
  return undefined;
}

/** A MediaInfo in the tools' snake_case. */
export function mediaOf(info: MediaInfo) {
  return { kind: info.kind, format: info.format, duration_seconds: info.durationSeconds, width: info.width, height: info.height };
}
