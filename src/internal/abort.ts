import { APIUserAbortError } from '../errors.js';

/**
 * The error for work that `signal` stopped: `what` names the work (`'The batch'` says "The batch was aborted."),
 * and the signal's reason is its cause.
 */
export function abortError(signal: AbortSignal | undefined, what: string): APIUserAbortError {
  return new APIUserAbortError(`${what} was aborted.`, { cause: signal?.reason });
}
