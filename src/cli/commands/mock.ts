import { once } from 'node:events';
import type { Command } from 'commander';
import { port } from '../flags.js';
import type { Session } from '../session.js';
import { UsageError } from '../usage-error.js';

export function registerMock(program: Command, session: Session): void {
  program
    .command('mock')
    .description('run the embedded mock API on 127.0.0.1 until Ctrl-C, to try the CLI and the SDK with no account')
    .option('--port <port>', 'port of the API (default: any free port)', port, 0)
    .action(async (flags: { port: number }) => {
      // The mock needs msw, an optional peer dependency; startMockServer says so when it is missing (testing/msw.ts).
      const { startMockServer } = await import('../../testing/index.js');
      const mock = await startMockServer({ port: flags.port }).catch((error: unknown) => {
        if (!(error instanceof Error) || !error.message.startsWith('avatar-video/testing needs msw')) throw error;
        throw new UsageError([{ code: 'missing_dependency', message: 'the mock needs msw: npm install msw' }]);
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
