import type { MockServer } from '../testing/index.js';
import { UsageError } from './usage-error.js';

/** As the README says: in the project that has avatar-video (or beside a global install, with -g). */
export const INSTALL_MSW = 'npm install -D msw';

/**
 * Start the embedded mock (`avatar-video/testing`) on `port` (0: any free one), for `mock` and `demo`. What the user
 * can fix is a UsageError naming the fix: msw missing, or the port taken or not allowed.
 */
export async function startEmbeddedMock(port: number, command: string): Promise<MockServer> {
  // Loaded on use: the mock and msw go in a chunk of their own, which no other command loads.
  const { startMockServer } = await import('../testing/index.js');
  return startMockServer({ port }).catch((error: unknown) => {
    const problem = mockProblem(error, port, command);
    throw problem ? new UsageError([problem]) : error;
  });
}

function mockProblem(error: unknown, port: number, command: string) {
  if (error instanceof Error && error.message.startsWith('avatar-video/testing needs msw')) {
    return { code: 'missing_dependency', message: `the mock needs msw: ${INSTALL_MSW}` };
  }
  const code = (error as NodeJS.ErrnoException).code;
  const retry = `pick another with --port, or leave --port out to use a free one (\`${command} mock\`)`;
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
