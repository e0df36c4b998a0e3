import { AvatarVideoError, VideoCancelledError, VideoFailedError } from '../errors.js';

/**
 * A job is paid for from the moment its create is answered, so every error a call throws after that names the
 * job and the call that goes on with it: the id must not live only in a log line that `logLevel: 'off'` hides.
 */

/**
 * Where a created job stood when the call that made it failed: maybe still running (the call would have returned
 * it, or saved it too), or COMPLETE with saving failed.
 */
export type JobStage = 'running' | 'running-then-save' | 'complete';

/** The call that goes on with job `id` from `stage`, as a sentence for an error message. */
export function nextCall(id: string, stage: JobStage): string {
  if (stage === 'complete') {
    return `Video ${id} is COMPLETE but was not saved: call videos.download('${id}', path) to save it without paying again.`;
  }
  const then = stage === 'running-then-save' ? ` then videos.download('${id}', path)` : '';
  return `Video ${id} was created and may still be running: call videos.waitForCompletion('${id}')${then}.`;
}

/** Each named error's message before the advice was added. */
const unadvised = new WeakMap<Error, string>();

/**
 * The error to throw for `error`, which happened after job `videoId` was created: it carries `videoId` (unless it
 * already names a job) and its message ends with `advice`, added once however many layers pass the error on. A job
 * that ended (FAILED, CANCELLED) gets no advice: there is nothing to go on with, and its message names it already.
 * An error that is not the SDK's is wrapped, with the original as `cause`.
 */
export function namingJob(error: unknown, videoId: string, advice?: string): AvatarVideoError {
  const named =
    error instanceof AvatarVideoError
      ? error
      : new AvatarVideoError(error instanceof Error ? error.message : String(error), { cause: error });
  if (named.videoId === undefined) (named as { videoId?: string }).videoId = videoId;
  if (advice === undefined || unadvised.has(named) || named instanceof VideoFailedError || named instanceof VideoCancelledError) {
    return named;
  }
  const before = named.message;
  unadvised.set(named, before);
  // Read before the message changes: V8 writes the stack at its first read, with the message of that moment.
  const { stack } = named;
  named.message = `${before}${/[.!?]$/.test(before) ? '' : '.'} ${advice}`;
  // An uncaught error prints its stack, so the stack must show the advice too.
  if (stack?.includes(before)) named.stack = stack.replace(before, () => named.message);
  return named;
}

/**
 * `error`'s message without the advice {@link namingJob} added, for a caller that words its own (the CLI prints
 * the command that goes on, not the SDK call).
 */
export function messageWithoutAdvice(error: Error): string {
  return unadvised.get(error) ?? error.message;
}
