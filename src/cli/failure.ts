import {
  APIError,
  APIUserAbortError,
  MediaValidationError,
  ResponseValidationError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
  WaitTimeoutError,
} from '../index.js';
import { ExitCode } from './exit-codes.js';
import { flagFor } from './media-flags.js';
import { UsageError } from './usage-error.js';

/** How a thrown error is reported: the exit code, lines for a person, and an object for `--json`. */
export interface Failure {
  exitCode: ExitCode;
  lines: string[];
  json: { error: Record<string, unknown> };
}

/**
 * Classify what a command threw. `interrupted` says Ctrl-C was pressed: whatever error the abort
 * surfaced as (an abort, a closed stream), the honest report is "interrupted".
 */
export function describeFailure(error: unknown, interrupted: boolean): Failure {
  if (interrupted || error instanceof APIUserAbortError) {
    return { exitCode: ExitCode.interrupted, lines: ['interrupted'], json: { error: { type: 'Interrupted', message: 'interrupted' } } };
  }
  if (error instanceof UsageError) {
    const lines = error.problems.map((problem) => (problem.field ? `${flagFor(problem.field)}: ${problem.message}` : problem.message));
    return usage(error.name, lines, { problems: error.problems });
  }
  if (error instanceof MediaValidationError) {
    return usage(
      error.name,
      error.issues.map((issue) => `${flagFor(issue.field)}: ${issue.message}`),
      { problems: error.issues },
    );
  }
  // A path that cannot be opened (the SDK's UploadInputError is not exported; its name is stable).
  if (error instanceof Error && error.name === 'UploadInputError') return usage(error.name, [error.message], {});

  const base = error instanceof Error ? error : new Error(String(error));
  const details: Record<string, unknown> = {};
  if (error instanceof APIError) Object.assign(details, { status: error.status, code: error.code, requestId: error.requestId });
  if (error instanceof ResponseValidationError) Object.assign(details, { requestId: error.requestId, problems: error.problems });
  if (error instanceof VideoFailedError) Object.assign(details, { code: error.code, videoId: error.video.id });
  if (error instanceof VideoCancelledError || error instanceof VideoNotReadyError) details.videoId = error.video.id;
  if (error instanceof WaitTimeoutError) details.videoId = error.video?.id;
  // Name the code, request id and video when the message does not already (API messages usually do).
  const facts = [
    ['status', details.status],
    ['code', details.code],
    ['request id', details.requestId],
    ['video', details.videoId],
  ]
    .filter(([, value]) => value !== undefined && !base.message.includes(String(value)))
    .map(([label, value]) => `${label} ${value}`);
  const lines = [base.message, ...(facts.length > 0 ? [`(${facts.join(', ')})`] : [])];
  return { exitCode: ExitCode.failed, lines, json: { error: { type: base.name, message: base.message, ...details } } };
}

function usage(type: string, lines: string[], extra: Record<string, unknown>): Failure {
  return { exitCode: ExitCode.usage, lines, json: { error: { type, message: lines.join('\n'), ...extra } } };
}
