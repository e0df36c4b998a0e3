import { dirname } from 'node:path';
import { APIConnectionError, APIError, type OutputPathError } from '../index.js';
import type { PathRefusedError } from './paths.js';

/**
 * The next step of a failure an agent cannot fix by calling a tool differently: the server's own settings are the
 * user's to change, in the `env` block of this server's entry in the MCP client's configuration (an agent cannot
 * export a variable into a server its client started).
 */
const IN_SERVER_CONFIG = `the "env" block of this server's entry in the MCP client's configuration`;

/** A client this server could not make: its configuration lacks or mangles a setting (the key, the base URL). */
export class ServerSetupError extends Error {
  override name = 'ServerSetupError';
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The settings a setup failure names, in the order they are set. */
const SETTINGS = ['AVATAR_VIDEO_API_KEY', 'AVATAR_VIDEO_BASE_URL', 'AVATAR_VIDEO_ALLOW_INSECURE_HTTP'];

/** A problem as the CLI's configuration check lists it (`UsageError.problems`): its code and words. */
type Problem = { code?: unknown; message?: unknown };

/** What is wrong with the server's configuration, in words for a server whose client started it (no "export"). */
function setupProblems(error: ServerSetupError): string[] {
  const problems = (error.cause as { problems?: Problem[] } | undefined)?.problems;
  const listed = Array.isArray(problems) ? problems : [{ message: error.message }];
  return listed.map(({ code, message }) => {
    if (code === 'missing_api_key') return "AVATAR_VIDEO_API_KEY is not set in this server's environment";
    if (code === 'missing_base_url') return "AVATAR_VIDEO_BASE_URL is not set in this server's environment";
    // The library's own words ("Missing API key: pass { apiKey } or set ..."): the setting it names is the point.
    const text = String(message);
    const named = SETTINGS.find((name) => text.includes(name));
    return /^Missing /.test(text) && named ? `${named} is not set in this server's environment` : text;
  });
}

/** A server that cannot call the service: the user fixes its configuration and restarts it; validate_inputs works meanwhile. */
export function setupFailure(error: ServerSetupError) {
  const problems = setupProblems(error);
  const named = SETTINGS.filter((name) => problems.some((problem) => problem.includes(name)));
  const settings = named.length > 0 ? named.join(' and ') : 'AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL';
  // The command as the user runs it, when the CLI's check named it (`npx avatar-video`).
  const command = /run `([^`]+) mock`/.exec(error.message)?.[1] ?? 'npx avatar-video';
  return {
    code: 'server_not_configured',
    message: `This server cannot call the service: ${problems.join('; ')}.`,
    next:
      `ask the user to set ${settings} in ${IN_SERVER_CONFIG} (e.g. "env": { "AVATAR_VIDEO_API_KEY": "<key>", ` +
      `"AVATAR_VIDEO_BASE_URL": "https://..." }) and restart the server; no tool call can set them. To try without an ` +
      `account, \`${command} mock\` prints the two values. validate_inputs works meanwhile (it needs neither)`,
  };
}

/** The system code behind a connection failure that never reached the server (refused, a name DNS does not know). */
function unreachableCode(error: APIConnectionError): 'ECONNREFUSED' | 'ENOTFOUND' | undefined {
  const links: unknown[] = [error];
  for (let i = 0; i < links.length && i < 12; i++) {
    const link = links[i] as { code?: unknown; cause?: unknown; errors?: unknown };
    if (link.code === 'ECONNREFUSED' || link.code === 'ENOTFOUND') return link.code;
    if (link.cause) links.push(link.cause);
    // Node's connect tries each address of a name: an AggregateError holds each refusal.
    if (Array.isArray(link.errors)) links.push(...link.errors);
  }
  return undefined;
}

/**
 * A connection to the API that never opened: nothing reached the service, and the fix is the base URL in the server's
 * configuration (a mock started again listens on a new port) or the service itself. Undefined for other failures.
 */
export function unreachableFailure(error: unknown, videoId: string | undefined) {
  if (!(error instanceof APIConnectionError) || error.origin !== 'api') return undefined;
  const code = unreachableCode(error);
  if (code === undefined) return undefined;
  const server = error.host ? `the service at ${error.host}` : 'the service';
  const why = code === 'ECONNREFUSED' ? 'refused the connection' : 'has a host name no DNS server knows';
  return {
    code: 'service_unreachable',
    message: `Could not connect: ${server} ${why}, so nothing reached the service (nothing was created).`,
    video_id: videoId,
    next:
      `AVATAR_VIDEO_BASE_URL is wrong or the service there is down (a mock started again takes a new port): ask the user ` +
      `to correct AVATAR_VIDEO_BASE_URL in ${IN_SERVER_CONFIG}, or to start the service, then restart this server`,
  };
}

/** A 404 that is not about a video id: the base URL leads to a server without the API's routes. */
export function noRouteFailure(error: APIError) {
  return {
    code: 'no_such_route',
    message: `The service at ${error.host || 'the base URL'} has no such route: ${error.message}`,
    next:
      `AVATAR_VIDEO_BASE_URL points to a server without the API (it is the address without /v1, e.g. https://api.example.com): ` +
      `ask the user to correct it in ${IN_SERVER_CONFIG} and restart this server`,
  };
}

/** A file host's refusal of a signed address (404, 410, 403): the address went stale; a new download asks for a fresh one. */
export function fileHostNext(error: unknown, videoId: string | undefined): string | undefined {
  if (!(error instanceof APIError) || error.origin !== 'file-host' || !videoId) return undefined;
  return `call download_video with video_id ${videoId}: it asks the API for a fresh signed address (the last one was refused by the file host)`;
}

/** What to pass instead of a path a tool refused, by what was wrong with it. */
export function pathNext(error: PathRefusedError): string {
  switch (error.code) {
    case 'not_local':
      return `give ${error.field} as a local file path inside the allowed roots (the server reads files from disk: no URL, no file contents)`;
    case 'outside_roots':
      return `give a path inside the allowed roots listed in the message (copy the file there), or ask the user to add its folder to the client's roots or to AVATAR_VIDEO_MCP_ROOTS in ${IN_SERVER_CONFIG}`;
    case 'not_found':
      return `check ${error.field}: no file is at that path (a relative path starts at the first allowed root); give the path of a file that exists`;
    case 'folder_missing':
      return 'create that folder first, or pass an output_path in a folder that exists';
    case 'exists':
      return 'pass overwrite: true to replace the file, or choose another output_path';
    default:
      return `give ${error.field} as the path of a plain file (not a folder or a symbolic link)`;
  }
}

/** What to pass instead of an output_path the library's check refused, by its problem. */
export function outputPathNext(error: OutputPathError): string {
  switch (error.code) {
    case 'invalid':
      return 'pass another output_path: a plain file name such as video.mp4, in a folder inside the allowed roots';
    case 'is_folder':
      return `pass an output_path that names a file in that folder, e.g. ${error.path}/video.mp4`;
    case 'folder_missing':
      return `create the folder ${dirname(error.path)} first, or pass an output_path in a folder that exists`;
    case 'not_a_folder':
      return `part of the output_path's folder is a file, not a folder: pass an output_path in a folder that exists`;
    default:
      return 'pass an output_path in a folder this server can write to (inside the allowed roots)';
  }
}
