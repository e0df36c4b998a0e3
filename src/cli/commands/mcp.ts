import { type Command, Option } from 'commander';
import { port, withCreateRate } from '../flags.js';
import type { Session } from '../session.js';
import { UsageError } from '../usage-error.js';
import { portProblem } from './mock.js';

export function registerMcp(program: Command, session: Session): void {
  withCreateRate(program.command('mcp'))
    .description(
      'serve the avatar video tools to an AI agent over MCP (stdio, or HTTP with --http): validate, generate, wait, get, list, download',
    )
    .option('--http', 'serve Streamable HTTP on 127.0.0.1 instead of stdio (Host and Origin checked: loopback only)')
    .addOption(new Option('--port <port>', 'port for --http').argParser(port).default(0, 'any free port'))
    .addHelpText(
      'after',
      '\nEnvironment: AVATAR_VIDEO_API_KEY (the key: never a flag), AVATAR_VIDEO_MCP_ROOTS (folders the tools may read and write,\n' +
        "separated by the path delimiter; default the working directory, or the client's roots), AVATAR_VIDEO_MCP_MAX_WAIT\n" +
        '(seconds one tool call may take; default 55, at most 110). Stdout carries MCP alone; logs go to stderr.',
    )
    .action(async (flags: { http?: boolean; port: number }) => {
      // Loaded on use: the MCP SDK is most of the command's code, and no other command needs it.
      const [{ maxWaitFrom }, { rootsFromEnvironment }, { runStdio }] = await Promise.all([
        import('../../mcp/budget.js'),
        import('../../mcp/roots.js'),
        import('../../mcp/stdio.js'),
      ]);
      const log = (line: string) => session.stderr.write(`${line}\n`);
      const budget = maxWaitFrom(process.env.AVATAR_VIDEO_MCP_MAX_WAIT);
      if (budget.warning) log(`warning: ${budget.warning}`);
      const options = {
        client: () => session.client(),
        roots: rootsFromEnvironment(process.env, process.cwd()),
        maxWaitSeconds: budget.seconds,
        log,
        signal: session.signal,
      };
      if (!flags.http) {
        if (flags.port !== 0)
          throw new UsageError([{ code: 'port_without_http', message: '--port is for --http: add --http, or leave --port out for stdio' }]);
        return runStdio(options);
      }
      // Loaded on use: stdio, the usual transport, needs no HTTP server.
      const { runHttp } = await import('../../mcp/http.js');
      await runHttp({ ...options, port: flags.port }).catch((error: unknown) => {
        const problem = portProblem(error, flags.port, `${session.command} mcp --http`);
        throw problem ? new UsageError([problem]) : error;
      });
    });
}
