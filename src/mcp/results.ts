import { pathToFileURL } from 'node:url';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import {
  APIError,
  APIUserAbortError,
  AvatarVideoError,
  MediaValidationError,
  NotFoundError,
  OutputPathError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
} from '../index.js';
import { scrub } from '../internal/redact.js';
import { PathRefusedError } from './paths.js';

/** Signed query strings (the file host's address) and the key never leave the server but through get_video_url. */
export function clean(text: string): string {
  return scrub(text, process.env.AVATAR_VIDEO_API_KEY?.trim()).replace(/(https?:\/\/[^\s?#'"]+)\?[^\s#'"]*/g, '$1?[redacted]');
}

/** `value` with every string cleaned, for structuredContent. */
function cleanValue<T>(value: T): T {
  return JSON.parse(clean(JSON.stringify(value))) as T;
}

/** A tool's result: the structured value and one line for a person or a model. */
export function success(summary: string, structured: Record<string, unknown>, links: ResourceLink[] = []): CallToolResult {
  return { content: [{ type: 'text', text: clean(summary) }, ...links], structuredContent: cleanValue(structured) };
}

/** The extra a saved MP4 carries: a link to the file (never its bytes). */
export function fileLink(path: string, bytes: number): ResourceLink {
  return {
    type: 'resource_link',
    uri: pathToFileURL(path).href,
    name: path.split(/[\\/]/).pop() ?? path,
    mimeType: 'video/mp4',
    size: bytes,
  };
}

/** What went wrong, as a result the model reads: the message, the job's id when there is one, and the next step. */
export interface Failure {
  code: string;
  message: string;
  video_id?: string | undefined;
  next: string;
  issues?: Array<{ field?: string | undefined; code: string; message: string }> | undefined;
}

export function failureResult(failure: Failure): CallToolResult {
  const id = failure.video_id ? ` (video ${failure.video_id})` : '';
  const text = `Error${id}: ${failure.message} Next: ${failure.next}`;
  // No structuredContent: clients check it against the tool's output schema even on an error, so the details go as JSON text.
  return {
    isError: true,
    content: [
      { type: 'text', text: clean(text) },
      { type: 'text', text: clean(JSON.stringify({ error: failure })) },
    ],
  };
}

/** A thrown error as a Failure, naming the job when the error (or the call) knows it. */
export function failureOf(error: unknown, videoId?: string): Failure {
  const id = (error instanceof AvatarVideoError ? error.videoId : undefined) ?? videoId;
  const message = error instanceof Error ? error.message : String(error);
  const running = id ? `The job ${id} keeps running: call wait_for_video or get_video with video_id ${id} (do not create it again).` : '';
  if (error instanceof PathRefusedError) return { code: error.code, message, next: 'give a path inside the allowed roots and try again' };
  if (error instanceof MediaValidationError) {
    return {
      code: 'invalid_inputs',
      message,
      issues: error.issues,
      next: 'fix the inputs listed in issues (validate_inputs checks them for free)',
    };
  }
  if (error instanceof OutputPathError) return { code: 'output_path', message, next: outputPathNext(error) };
  if (error instanceof VideoFailedError || error instanceof VideoCancelledError) {
    const next =
      error instanceof VideoFailedError && error.isRateLimited
        ? 'try generate_video again later (a new paid job)'
        : 'check the inputs; a new generate_video call is a new paid job';
    return { code: error instanceof VideoFailedError ? 'video_failed' : 'video_cancelled', message, video_id: id, next };
  }
  if (error instanceof VideoNotReadyError)
    return { code: 'not_ready', message, video_id: id, next: `call wait_for_video with video_id ${id}` };
  if (error instanceof APIUserAbortError)
    return { code: 'cancelled', message: 'the call was cancelled', video_id: id, next: running || 'nothing was created' };
  if (error instanceof NotFoundError && id) return unknownVideo(id, message);
  if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
    return { code: 'unauthorized', message, video_id: id, next: 'check AVATAR_VIDEO_API_KEY in the server configuration' };
  }
  return {
    code: error instanceof AvatarVideoError ? error.name : 'error',
    message,
    video_id: id,
    next: running || 'try again; nothing was created',
  };
}

/** What to pass instead of an output_path that cannot be saved to. */
function outputPathNext(error: OutputPathError): string {
  if (error.code === 'invalid')
    return 'pass another output_path: a plain file name such as video.mp4, in a folder inside the allowed roots';
  if (error.code === 'is_folder') return 'pass an output_path that names a file in that folder, e.g. <folder>/video.mp4';
  return 'pass an output_path in an existing folder this server can write to, inside the allowed roots';
}

/** A 404 for an id: the service knows no such video, so there is nothing to wait for; list_videos finds the right id. */
function unknownVideo(id: string, message: string): Failure {
  return {
    code: 'unknown_video',
    message: `No video has the id ${id} on this account: ${message}`,
    next: "check the video_id: call list_videos to find the right one (newest first; get_video's description lists this server's recent jobs)",
  };
}
