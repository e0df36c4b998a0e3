/** Codes that name a fault of the service rather than of the inputs (the spec lists no codes but a rate limit's). */
const SERVICE_FAULT = /internal|server|unavailable|timeout|timed.?out|overload|capacity|temporar/i;

/**
 * Whether a FAILED job's `error.code` names a fault of the service, after which the job runner makes the job again:
 * the same inputs may well succeed. A leaf, so that avatar-video/bullmq can tell a failure that is final for the
 * video from one a later attempt makes again.
 */
export function isServiceFault(code: string | undefined): boolean {
  return code !== undefined && SERVICE_FAULT.test(code);
}
