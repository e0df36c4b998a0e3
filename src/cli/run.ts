import { CommanderError } from 'commander';
import { cliFailure, ExitCode } from './failure.js';
import { buildProgram } from './program.js';
import { withRerun, withResume } from './resume.js';
import { Session } from './session.js';

/** Where a run writes and what interrupts it, for a caller that runs the CLI in its own process (the tests). */
export interface RunIO {
  /** @default process.stdout */
  stdout?: NodeJS.WriteStream;
  /** @default process.stderr */
  stderr?: NodeJS.WriteStream;
  /** Aborting it is Ctrl-C. @default the process's SIGINT (a handler installed for the run) */
  signal?: AbortSignal;
}

/** Run the CLI on `argv` (as `process.argv`) and return the exit code; never throws. */
export async function run(argv: string[], io: RunIO = {}): Promise<ExitCode> {
  const interrupt = io.signal ? { signal: io.signal, dispose: () => {} } : onInterrupt();
  const session = new Session(interrupt.signal, io.stdout ?? process.stdout, io.stderr ?? process.stderr);
  try {
    await buildProgram(session).parseAsync(argv);
    return session.exitCode;
  } catch (error) {
    // Commander has already printed its message (or the help / version asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const described = cliFailure(error, interrupt.signal.aborted, { baseURL: session.serviceAddress, videoId: session.job?.id });
    const failure =
      session.rerun !== undefined
        ? withRerun(described, argv.slice(2), session.rerun.videoIds)
        : withResume(described, session.job, error, session.resumeContext);
    session.fail(failure);
    return failure.exitCode;
  } finally {
    await session.close().catch(() => {});
    interrupt.dispose();
  }
}

/** Grace period for the aborted work to clean up (remove a partial file) before the process ends anyway. */
const CLEANUP_MS = 3_000;

/**
 * Turn SIGINT into an abort, which every request, wait and download of the command listens to. The first Ctrl-C
 * aborts the command, which then cleans up and exits 130; a second one, or cleanup taking too long, ends the process.
 */
function onInterrupt(): { signal: AbortSignal; dispose: () => void } {
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
