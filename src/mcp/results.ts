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
import { fileHostNext, noRouteFailure, outputPathNext, pathNext, ServerSetupError, setupFailure, unreachableFailure } from './hints.js';
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
  if (error instanceof ServerSetupError) return setupFailure(error);
  if (error instanceof PathRefusedError) return { code: error.code, message, next: pathNext(error) };
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
  const unreachable = unreachableFailure(error, id);
  if (unreachable) return unreachable;
  // A route the service lacks (the mock says `not_found`; a video it does not know is `video_not_found`).
  if (error instanceof NotFoundError) return id && error.code !== 'not_found' ? unknownVideo(id, message) : noRouteFailure(error);
  if (error instanceof APIError && (error.status === 401 || error.status === 403) && error.origin === 'api') {
    return {
      code: 'unauthorized',
      message,
      video_id: id,
      next: 'ask the user to check AVATAR_VIDEO_API_KEY in the "env" block of this server\'s entry in the MCP client\'s configuration',
    };
  }
  return {
    code: error instanceof AvatarVideoError ? error.name : 'error',
    message,
    video_id: id,
    next: fileHostNext(error, id) ?? (running || 'try again; nothing was created'),
  };
}

/** Failures no call of a tool can fix: the server's configuration or the service itself; a resume does not help. */
export function needsTheUser(failure: Failure): boolean {
  return ['server_not_configured', 'service_unreachable', 'no_such_route', 'unauthorized'].includes(failure.code);
}

/** A 404 for an id: the service knows no such video, so there is nothing to wait for; list_videos finds the right id. */
function unknownVideo(id: string, message: string): Failure {
  return {
    code: 'unknown_video',
    message: `No video has the id ${id} on this account: ${message}`,
    next: "check the video_id: call list_videos to find the right one (newest first; get_video's description lists this server's recent jobs)",
  };
}
