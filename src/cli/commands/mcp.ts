import type { Command } from 'commander';
import type { Session } from '../session.js';

export function registerMcp(program: Command, session: Session): void {
  program
    .command('mcp')
    .description('serve the avatar video tools to an AI agent over MCP (stdio): validate, generate, wait, get, list, download')
    .addHelpText(
      'after',
      '\nEnvironment: AVATAR_VIDEO_API_KEY (the key: never a flag), AVATAR_VIDEO_MCP_ROOTS (folders the tools may read and write,\n' +
        "separated by the path delimiter; default the working directory, or the client's roots), AVATAR_VIDEO_MCP_MAX_WAIT\n" +
        '(seconds one tool call may take; default 55, at most 110). Stdout carries MCP alone; logs go to stderr.',
    )
    .action(async () => {
      // Loaded on use: the MCP SDK is most of the command's code, and no other command needs it.
      const [{ maxWaitFrom }, { rootsFromEnvironment }, { runStdio }] = await Promise.all([
        import('../../mcp/budget.js'),
        import('../../mcp/roots.js'),
        import('../../mcp/stdio.js'),
      ]);
      const log = (line: string) => session.stderr.write(`${line}\n`);
      const budget = maxWaitFrom(process.env.AVATAR_VIDEO_MCP_MAX_WAIT);
      if (budget.warning) log(`warning: ${budget.warning}`);
      await runStdio({
        client: () => session.client(),
        roots: rootsFromEnvironment(process.env, process.cwd()),
        maxWaitSeconds: budget.seconds,
        log,
        signal: session.signal,
      });
    });
}
