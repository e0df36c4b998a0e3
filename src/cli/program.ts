import { Command } from 'commander';
import { VERSION } from '../index.js';
import { registerBatch } from './commands/batch.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerCreate, registerGenerate, registerValidate } from './commands/make.js';
import { registerMock } from './commands/mock.js';
import type { GlobalOptions, Session } from './session.js';

const ENVIRONMENT = `
Environment:
  AVATAR_VIDEO_API_KEY   API key (there is no key flag, so keys stay out of shell history)
  AVATAR_VIDEO_BASE_URL  service address, e.g. https://api.example.com (--base-url overrides it)
  AVATAR_VIDEO_LOG       SDK log level: debug, info, warn (default), error, off
  AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1  same as --allow-insecure-http
  NO_COLOR               set to disable colour

Exit codes: 0 success, 1 the API or the job failed, 2 usage or input error, 130 interrupted (Ctrl-C).`;

/** The `avatar-video` command tree. Commander throws instead of exiting, so the caller picks the exit code. */
export function buildProgram(session: Session): Command {
  const program = new Command('avatar-video')
    .description('Make talking-avatar videos from an audio file and a portrait, with the avatar video API.')
    .version(VERSION)
    .option('--json', 'print results (and errors) as JSON on stdout')
    .option('--base-url <url>', 'service address (default: $AVATAR_VIDEO_BASE_URL)')
    .option('--allow-insecure-http', 'allow a plain http service address on another machine (the key crosses the network in clear)')
    .addHelpText('after', ENVIRONMENT)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => session.stdout.write(text),
      writeErr: (text) => session.stderr.write(text),
      outputError: (message, write) => write(session.paint('red', message)),
    })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .hook('preAction', (_program, command) => session.configure(command.optsWithGlobals<GlobalOptions>()));
  // Subcommands made with .command() inherit exitOverride, the output settings and the help settings above.
  for (const register of [registerGenerate, registerBatch, registerValidate, registerCreate, registerJobCommands, registerMock]) {
    register(program, session);
  }
  return program;
}
