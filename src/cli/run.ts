import { CommanderError } from 'commander';
import { ExitCode } from './exit-codes.js';
import { cliFailure } from './failure.js';
import { onInterrupt } from './interrupt.js';
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
