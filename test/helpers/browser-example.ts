import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx/cli');

export interface BrowserExample {
  /** The page's address, `http://127.0.0.1:<port>/`. */
  url: string;
  close(): Promise<void>;
}

/**
 * examples/browser copied into `folder` (a consumer folder: 'avatar-video' there is this run's packed build) and its
 * server started there with `env`, as a user runs it: the page bundled from the installed package, the proxy and
 * the testing entry from it too. A tsconfig of its own keeps tsx from the repository's `paths` (the sources).
 */
export async function startBrowserExample(folder: string, env: Record<string, string>): Promise<BrowserExample> {
  await cp(join(root, 'examples/browser'), folder, { recursive: true });
  const tsconfig = join(folder, 'tsconfig.json');
  await writeFile(tsconfig, JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  const server = spawn(process.execPath, [tsx, '--tsconfig', tsconfig, join(folder, 'server.ts')], {
    cwd: folder,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(server, 'exit');
  let errors = '';
  server.stderr.on('data', (chunk: Buffer) => {
    errors += chunk;
  });
  let url: string | undefined;
  for await (const line of createInterface({ input: server.stdout })) {
    url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
    if (url) break;
  }
  // The rest of its output is not read: let it drain rather than fill the pipe.
  server.stdout.resume();
  if (url === undefined) {
    await exited;
    throw new Error(`the browser example's server exited before listening:\n${errors}`);
  }
  return {
    url,
    close: async () => {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
    },
  };
}
