import { once } from 'node:events';
import { type Command, Option } from 'commander';
import { INSTALL_MSW, startEmbeddedMock } from '../embedded-mock.js';
import { port } from '../flags.js';
import type { Session } from '../session.js';

export function registerMock(program: Command, session: Session): void {
  program
    .command('mock')
    .description('run the embedded mock API on 127.0.0.1 until Ctrl-C, to try the CLI and the SDK with no account')
    .addOption(new Option('--port <port>', 'port of the API').argParser(port).default(0, 'any free port'))
    .addHelpText('after', `\nNeeds msw, an optional peer dependency of avatar-video: ${INSTALL_MSW}`)
    .action(async (flags: { port: number }) => {
      const mock = await startEmbeddedMock(flags.port, session.command);
      try {
        session.result({ baseURL: mock.baseURL, apiKey: mock.apiKey, port: Number(new URL(mock.baseURL).port) }, [
          `export AVATAR_VIDEO_BASE_URL=${mock.baseURL}`,
          `export AVATAR_VIDEO_API_KEY=${mock.apiKey}`,
        ]);
        session.note(
          `Mock API running on port ${new URL(mock.baseURL).port} (base URL ${mock.baseURL}): run the two lines above in ` +
            `another shell, then any ${session.command} command, or your code (the client reads both). Ctrl-C stops it.`,
        );
        // Ctrl-C is how this command ends, so it ends normally (exit 0) rather than as an interruption.
        if (!session.signal.aborted) await once(session.signal, 'abort');
      } finally {
        await mock.close();
      }
    });
}
