import { once } from 'node:events';
import { type Command, Option } from 'commander';
import { port } from '../flags.js';
import type { Session } from '../session.js';
import { UsageError } from '../usage-error.js';

/** As the README says: in the project that has avatar-video (or beside a global install, with -g). */
const INSTALL_MSW = 'npm install -D msw';

export function registerMock(program: Command, session: Session): void {
  program
    .command('mock')
    .description('run the embedded mock API on 127.0.0.1 until Ctrl-C, to try the CLI and the SDK with no account')
    .addOption(new Option('--port <port>', 'port of the API').argParser(port).default(0, 'any free port'))
    .addHelpText('after', `\nNeeds msw, an optional peer dependency of avatar-video: ${INSTALL_MSW}`)
    .action(async (flags: { port: number }) => {
      // The mock needs msw, an optional peer dependency; startMockServer says so when it is missing (testing/msw.ts).
      const { startMockServer } = await import('../../testing/index.js');
      const mock = await startMockServer({ port: flags.port }).catch((error: unknown) => {
        if (!(error instanceof Error) || !error.message.startsWith('avatar-video/testing needs msw')) throw error;
        throw new UsageError([{ code: 'missing_dependency', message: `the mock needs msw: ${INSTALL_MSW}` }]);
      });
      try {
        session.result({ baseURL: mock.baseURL, apiKey: mock.apiKey }, [
          `export AVATAR_VIDEO_BASE_URL=${mock.baseURL}`,
          `export AVATAR_VIDEO_API_KEY=${mock.apiKey}`,
        ]);
        session.note('Mock API running: run the two lines above in another shell, then any avatar-video command. Ctrl-C stops it.');
        // Ctrl-C is how this command ends, so it ends normally (exit 0) rather than as an interruption.
        if (!session.signal.aborted) await once(session.signal, 'abort');
      } finally {
        await mock.close();
      }
    });
}
