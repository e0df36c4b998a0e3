import { once } from 'node:events';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CreateRate } from '../../internal/create-rate.js';
import type { MockServer, MockServerOptions } from '../../testing/index.js';
import { createRate, port } from '../flags.js';
import type { Session } from '../session.js';
import { UsageError } from '../usage-error.js';

export function registerMock(program: Command, session: Session): void {
  program
    .command('mock')
    .description('run the embedded mock API on 127.0.0.1 until Ctrl-C, to try the CLI and the SDK with no account')
    .addOption(new Option('--port <port>', 'port of the API').argParser(port).default(0, 'any free port'))
    .addOption(
      new Option('--create-rate <creates/seconds>', "refuse creates beyond this rate with the service's 429 body, e.g. 2/60").argParser(
        createRate,
      ),
    )
    .addOption(
      new Option('--queued-ms <ms>', "show each job QUEUED for this first part of its processing time, as some of the service's jobs are")
        .argParser(milliseconds)
        .default(0),
    )
    .addHelpText('after', '\nNeeds nothing installed: the mock (and the parts of msw it uses) ships inside avatar-video.')
    .action(async (flags: { port: number; createRate?: CreateRate; queuedMs: number }) => {
      const { createRate, queuedMs } = flags;
      const mock = await startEmbeddedMock(flags.port, session.command, { ...(createRate ? { createRate } : {}), queuedMs });
      const apiPort = Number(new URL(mock.baseURL).port);
      try {
        session.result({ baseURL: mock.baseURL, apiKey: mock.apiKey, port: apiPort }, [
          `export AVATAR_VIDEO_BASE_URL=${mock.baseURL}`,
          `export AVATAR_VIDEO_API_KEY=${mock.apiKey}`,
        ]);
        session.note(
          `Mock API running on port ${apiPort} (base URL ${mock.baseURL}): run the two lines above in ` +
            `another shell, then any ${session.command} command, or your code (the client reads both). Ctrl-C stops it.`,
        );
        // Ctrl-C is how this command ends, so it ends normally (exit 0) rather than as an interruption.
        if (!session.signal.aborted) await once(session.signal, 'abort');
      } finally {
        await mock.close();
      }
    });
}

/** A `--queued-ms`: whole milliseconds, 0 or more. */
function milliseconds(value: string): number {
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new InvalidArgumentError('expected a whole number of milliseconds, 0 or more.');
  return ms;
}

/**
 * Start the embedded mock (`avatar-video/testing`) on `apiPort` (0: any free one), for `mock` and `demo`, with the
 * mock options the command was given (`createRate`, `queuedMs`). What the user
 * can fix is a UsageError naming the fix: the port taken or not allowed.
 */
export async function startEmbeddedMock(
  apiPort: number,
  command: string,
  options: Pick<MockServerOptions, 'createRate' | 'queuedMs'> = {},
): Promise<MockServer> {
  // Loaded on use: no other command needs the mock.
  const { startMockServer } = await import('../../testing/index.js');
  return startMockServer({ ...options, port: apiPort }).catch((error: unknown) => {
    const problem = portProblem(error, apiPort, `${command} mock`);
    throw problem ? new UsageError([problem]) : error;
  });
}

/**
 * The problem a user can fix in a failed listen on 127.0.0.1:`port` (`mock`, `mcp --http`), in the CLI's words,
 * suggesting `run` (the command without --port); undefined for any other failure.
 */
export function portProblem(error: unknown, port: number, run: string) {
  const code = (error as NodeJS.ErrnoException).code;
  const retry = `pick another with --port, or leave --port out to use a free one (\`${run}\`)`;
  if (code === 'EADDRINUSE') {
    return { code: 'port_in_use', message: `port ${port} on 127.0.0.1 is already in use by another program: ${retry}` };
  }
  if (code === 'EACCES') {
    return {
      code: 'port_not_allowed',
      message: `port ${port} needs privileges this user does not have (ports below 1024 usually do): ${retry}`,
    };
  }
  return undefined;
}
