import { ExitCode } from './exit-codes.js';

/** Grace period for the aborted work to clean up (remove a partial file) before the process ends anyway. */
const CLEANUP_MS = 3_000;

export interface Interrupt {
  /** Fires on the first Ctrl-C. Every request, wait and download of the command listens to it. */
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Turn SIGINT into an abort. The first Ctrl-C aborts the command, which then cleans up and exits 130;
 * a second one, or cleanup taking too long, ends the process at once.
 */
export function onInterrupt(): Interrupt {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    controller.abort(new Error('interrupted (Ctrl-C)'));
    // unref: this timer never keeps a finished process alive, it only ends one that hangs.
    setTimeout(() => process.exit(ExitCode.interrupted), CLEANUP_MS).unref();
  };
  process.on('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', handler) };
}
