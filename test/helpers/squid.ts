/**
 * A throwaway squid (Debian's /usr/sbin/squid) of the test's own: a config written per run into a folder of its
 * own, a free loopback port, in the foreground (`-N`), no cache. Its access log names, for each request, the
 * method, address, the local port of squid's own connection to the server, and every header the client sent to
 * squid, so a test can show the key never reached it. Started as root, squid runs as the user `proxy`, so its
 * folder belongs to that user.
 */
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findCommand, startOnFreePort } from './system-command.js';
import { passwordLine } from './test-ca.js';

export const SQUID_INSTALL_HINT = 'install squid (Debian/Ubuntu: sudo apt-get install squid; macOS: brew install squid)';

export const findSquid = (): string | undefined => findCommand('squid');

/** Debian's basic authentication helper, beside squid. */
const BASIC_AUTH_HELPER = ['/usr/lib/squid/basic_ncsa_auth', '/usr/lib64/squid/basic_ncsa_auth', '/usr/libexec/squid/basic_ncsa_auth'];

export interface SquidOptions {
  /** Ports squid tunnels to (CONNECT). @default [443], as a stock squid */
  connectPorts?: number[];
  /** Ask for this user and password (basic authentication, 407 without them). */
  user?: { name: string; password: string };
}

export interface SquidLogLine {
  /** TCP_TUNNEL/200, TCP_DENIED/403, TCP_DENIED/407, ... */
  result: string;
  method: string;
  url: string;
  /** The local port of squid's connection to the server; undefined when it made none. */
  serverSidePort: number | undefined;
  /** The request's headers as squid logs them (URL-encoded). */
  headers: string;
}

export interface Squid {
  /** `http://127.0.0.1:<port>`, no credentials. */
  url: string;
  port: number;
  /** The access log so far, without the line of the start's readiness check (a connection closed at once). */
  accessLog(): Promise<SquidLogLine[]>;
  /** The access log once it has `count` lines (squid logs a tunnel when it closes), or after `waitMs`. */
  accessLogOf(count: number, waitMs?: number): Promise<SquidLogLine[]>;
  /** The whole access log so far as squid wrote it. */
  rawAccessLog(): Promise<string>;
  close(): Promise<void>;
}

/** The user squid runs as when started as root (Debian's package makes it). */
const SQUID_USER = { uid: 13, gid: 13, name: 'proxy' };

function config(dir: string, port: number, options: SquidOptions): string {
  const auth = options.user
    ? [
        `auth_param basic program ${basicAuthHelper()} ${join(dir, 'passwd')}`,
        'auth_param basic realm avatar-video test',
        'acl authenticated proxy_auth REQUIRED',
        'http_access deny CONNECT !SSL_ports',
        'http_access allow localhost authenticated',
      ]
    : ['http_access deny CONNECT !SSL_ports', 'http_access allow localhost'];
  return [
    `http_port 127.0.0.1:${port}`,
    process.getuid?.() === 0 ? `cache_effective_user ${SQUID_USER.name}` : '',
    `pid_filename ${join(dir, 'squid.pid')}`,
    `cache_log ${join(dir, 'cache.log')}`,
    'cache_store_log none',
    `coredump_dir ${dir}`,
    'logformat headers %Ss/%03>Hs %rm %ru %<lp [%>h]',
    `access_log stdio:${join(dir, 'access.log')} headers`,
    'buffered_logs off',
    'cache deny all',
    'cache_mem 8 MB',
    'pinger_enable off',
    'netdb_filename none',
    'shutdown_lifetime 0 seconds',
    `acl SSL_ports port ${(options.connectPorts ?? [443]).join(' ')}`,
    'acl CONNECT method CONNECT',
    ...auth,
    'http_access deny all',
    '',
  ].join('\n');
}

function basicAuthHelper(): string {
  const found = BASIC_AUTH_HELPER.find((path) => existsSync(path));
  if (!found) throw new Error(`no basic_ncsa_auth beside squid (${BASIC_AUTH_HELPER.join(', ')}): ${SQUID_INSTALL_HINT}`);
  return found;
}

/** Start squid in a folder of its own (removed by close). */
export async function startSquid(options: SquidOptions = {}): Promise<Squid> {
  const command = findSquid();
  if (command === undefined) throw new Error(`no squid on PATH or in /usr/sbin: ${SQUID_INSTALL_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), 'avatar-squid-'));
  const read = (name: string) => readFile(join(dir, name), 'utf8').catch(() => '');
  if (options.user) await writeFile(join(dir, 'passwd'), await passwordLine(options.user.name, options.user.password));
  if (process.getuid?.() === 0) {
    await chown(dir, SQUID_USER.uid, SQUID_USER.gid);
    if (options.user) await chown(join(dir, 'passwd'), SQUID_USER.uid, SQUID_USER.gid);
  }
  const args = async (port: number) => {
    await writeFile(join(dir, 'squid.conf'), config(dir, port, options));
    return ['-N', '-f', join(dir, 'squid.conf')];
  };
  const removeDir = () => rm(dir, { recursive: true, force: true });
  const { port, stop } = await startOnFreePort(command, args, () => read('cache.log')).catch(async (error: unknown) => {
    await removeDir();
    throw error;
  });
  const rawAccessLog = () => read('access.log');
  const accessLog = async () => parseLog(await rawAccessLog());
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    rawAccessLog,
    accessLog,
    accessLogOf: async (count, waitMs = 5_000) => {
      for (const deadline = Date.now() + waitMs; Date.now() < deadline; await sleep(20)) {
        const lines = await accessLog();
        if (lines.length >= count) return lines;
      }
      return accessLog();
    },
    close: async () => {
      await stop();
      await removeDir();
    },
  };
}

const LINE = /^(\S+) (\S+) (\S+) (\S+) \[(.*)\]$/;

function parseLog(text: string): SquidLogLine[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = LINE.exec(line);
      if (!match) throw new Error(`unexpected squid log line: ${line}`);
      const [, result = '', method = '', url = '', port = '-', headers = ''] = match;
      return { result, method, url, serverSidePort: /^\d+$/.test(port) ? Number(port) : undefined, headers };
    })
    .filter((line) => line.url !== 'error:transaction-end-before-headers');
}
