import { Command, CommanderError } from 'commander';
import { APIUserAbortError, VERSION } from '../index.js';
import { registerBatch } from './commands/batch.js';
import { registerDemo } from './commands/demo.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerCreate, registerGenerate, registerValidate } from './commands/make.js';
import { registerMcp } from './commands/mcp.js';
import { registerMock } from './commands/mock.js';
import { registerRelay } from './commands/relay.js';
import { cliFailure } from './failure.js';
import { proxyUrl } from './flags.js';
import { commandName } from './invocation.js';
import { withRerun, withResume } from './resume.js';
import { ExitCode, Session } from './session.js';

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
  // The session exists before any Ctrl-C can reach the handler: it is made on the next line.
  const interrupt: Interrupt = io.signal ? { signal: io.signal, dispose: () => {} } : onInterrupt((): Session => session, argv);
  const session: Session = new Session(interrupt.signal, io.stdout ?? process.stdout, io.stderr ?? process.stderr);
  session.command = commandName(argv[1], process.env);
  try {
    await buildProgram(session).parseAsync(argv);
    return session.exitCode;
  } catch (error) {
    // Commander has already printed its message (or the help / version asked for).
    if (error instanceof CommanderError) return commanderExit(error, argv, session);
    const failure = failureOf(error, interrupt.signal.aborted, session, argv);
    session.fail(failure);
    return failure.exitCode;
  } finally {
    await session.close().catch(() => {});
    interrupt.dispose();
  }
}

/**
 * The exit code of a command line that commander refused (or of --help, --version). A `--json` run gets the
 * refusal on stdout too, as every other error: it stops before the options are read, so `--json` is looked for here.
 */
function commanderExit(error: CommanderError, argv: string[], session: Session): ExitCode {
  if (error.exitCode === 0) return ExitCode.ok;
  session.json = argv.slice(2).includes('--json');
  const message = error.message.replace(/^error: /, '');
  session.result({ error: { type: 'UsageError', code: error.code, message } }, []);
  return ExitCode.usage;
}

const ENVIRONMENT = `
Environment:
  AVATAR_VIDEO_API_KEY   API key (there is no key flag, so keys stay out of shell history)
  AVATAR_VIDEO_BASE_URL  service address, e.g. https://api.example.com (--base-url overrides it)
  AVATAR_VIDEO_LOG       SDK log level: debug, info, warn (default), error, off
  AVATAR_VIDEO_CREATE_RATE  the account's create rate, e.g. 2/60 (--create-rate overrides it)
  AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1  same as --allow-insecure-http
  HTTPS_PROXY, HTTP_PROXY  proxy for https:// and http:// addresses (lower case too; --proxy overrides both)
  NO_PROXY               hosts reached directly, e.g. localhost,.internal (also with --proxy)
  NO_COLOR               set to disable colour

Exit codes: 0 success, 1 the API or the job failed, 2 usage or input error, 130 interrupted (Ctrl-C).`;

/** The `avatar-video` command tree. Commander throws instead of exiting, so the caller picks the exit code. */
function buildProgram(session: Session): Command {
  const program = new Command('avatar-video')
    .description('Make talking-avatar videos from an audio file and a portrait, with the avatar video API.')
    .version(VERSION)
    .option('--json', 'print results (and errors) as JSON on stdout')
    .option('--base-url <url>', 'service address (default: $AVATAR_VIDEO_BASE_URL)')
    .option('--allow-insecure-http', 'allow a plain http service address on another machine (the key crosses the network in clear)')
    .option('--proxy <url>', 'send every request through this proxy (default: $HTTPS_PROXY / $HTTP_PROXY)', proxyUrl)
    .addHelpText('after', ENVIRONMENT)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => session.stdout.write(text),
      writeErr: (text) => session.stderr.write(text),
      outputError: (message, write) => write(session.paint('red', message)),
    })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .hook('preAction', (_program, command) => session.configure(command.optsWithGlobals(), command.name() !== 'mock'));
  // Subcommands made with .command() inherit exitOverride, the output settings and the help settings above.
  for (const register of [
    registerGenerate,
    registerBatch,
    registerValidate,
    registerCreate,
    registerJobCommands,
    registerMock,
    registerDemo,
    registerMcp,
    registerRelay,
  ]) {
    register(program, session);
  }
  return program;
}

/** What a failed command reports: the error in CLI terms, and how to go on with the jobs it made. */
function failureOf(error: unknown, interrupted: boolean, session: Session, argv: string[]) {
  const described = cliFailure(error, interrupted, session);
  return session.rerun !== undefined
    ? withRerun(described, argv.slice(2), session.rerun.videoIds, session.command)
    : withResume(described, session.job, error, session);
}

interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

/** Grace period for the aborted work to clean up (remove a partial file) before the process ends anyway. */
const CLEANUP_MS = 3_000;

/**
 * Turn SIGINT into an abort, which every request, wait and download of the command listens to. The first Ctrl-C
 * aborts the command, which then cleans up and exits 130. A second one, or cleanup taking too long, ends the
 * process, saying what the run knew. Once a whole upload has left, the abort waits for the create's answer (which
 * names the job the service may be making, within the request timeout), so that wait gets no cleanup deadline.
 */
function onInterrupt(session: () => Session, argv: string[]): Interrupt {
  const controller = new AbortController();
  const forced = () => {
    const reason = new APIUserAbortError('interrupted (Ctrl-C)');
    session().fail(failureOf(reason, true, session(), argv));
    process.exit(ExitCode.interrupted);
  };
  const handler = () => {
    if (controller.signal.aborted) return forced();
    controller.abort(new Error('interrupted (Ctrl-C)'));
    const { uploadSent, job } = session();
    if (uploadSent && !job) {
      session().note(
        "stopping: waiting for the service's answer to the upload, which names the job it may have made (Ctrl-C again to stop now)",
      );
      return;
    }
    // unref: this timer never keeps a finished process alive, it only ends one that hangs.
    setTimeout(forced, CLEANUP_MS).unref();
  };
  process.on('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', handler) };
}
