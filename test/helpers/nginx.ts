/**
 * A throwaway nginx (Debian's /usr/sbin/nginx) of the test's own: a config written per run into a folder, one
 * HTTPS server on a free loopback port, in the foreground as a child process (no service, no daemon). It serves
 * a folder (ETag, Range, If-Range as nginx does) or proxies to another address, and logs each request with the
 * `x-api-key` header it carried.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findCommand, startOnFreePort } from './system-command.js';

export const NGINX_INSTALL_HINT = 'install nginx (Debian/Ubuntu: sudo apt-get install nginx; macOS: brew install nginx)';

export const findNginx = (): string | undefined => findCommand('nginx');

export interface NginxSite {
  /** Certificate and key files (PEM) of the HTTPS server. */
  cert: string;
  key: string;
  /** Serve the files of this folder... */
  root?: string;
  /** ...or pass every request on to this address (e.g. the mock's `http://127.0.0.1:<port>`). */
  proxyPass?: string;
  /** Offer HTTP/2 (ALPN) beside HTTP/1.1. @default false */
  http2?: boolean;
}

/** One line of the access log. Fields nginx had no value for read `-`. */
export interface NginxLogLine {
  /** The client's port: the connection the request came over. */
  remotePort: number;
  request: string;
  /** HTTP/1.1 or HTTP/2.0 */
  protocol: string;
  status: number;
  apiKey: string;
  range: string;
  ifRange: string;
}

export interface Nginx {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The access log so far, parsed. */
  accessLog(): Promise<NginxLogLine[]>;
  /** The access log so far as nginx wrote it. */
  rawAccessLog(): Promise<string>;
  close(): Promise<void>;
}

const LOG_FORMAT = `'$remote_port "$request" $server_protocol $status key="$http_x_api_key" range="$http_range" if_range="$http_if_range"'`;
const LINE = /^(\d+) "([^"]*)" (\S+) (\d+) key="([^"]*)" range="([^"]*)" if_range="([^"]*)"$/;

function config(dir: string, port: number, site: NginxSite): string {
  const where = site.root
    ? `root ${site.root};`
    : `proxy_pass ${site.proxyPass}; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_request_buffering off;`;
  // As root, nginx's workers would otherwise run as nobody, who cannot read the test's private temp folder.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${join(dir, name)};`);
  return `daemon off;
${user}
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} info;
events { worker_connections 64; }
http {
  log_format keys ${LOG_FORMAT};
  access_log ${join(dir, 'access.log')} keys;
  ${temp.join('\n  ')}
  types { video/mp4 mp4; }
  default_type application/octet-stream;
  client_max_body_size 200m;
  server {
    listen 127.0.0.1:${port} ssl${site.http2 ? ' http2' : ''};
    ssl_certificate ${site.cert};
    ssl_certificate_key ${site.key};
    location / { ${where} }
  }
}
`;
}

/** Start nginx with its config, logs and temp files in `dir` (made if missing). */
export async function startNginx(dir: string, site: NginxSite): Promise<Nginx> {
  const command = findNginx();
  if (command === undefined) throw new Error(`no nginx on PATH or in /usr/sbin: ${NGINX_INSTALL_HINT}`);
  await mkdir(dir, { recursive: true });
  const read = (name: string) => readFile(join(dir, name), 'utf8').catch(() => '');
  const args = async (port: number) => {
    await writeFile(join(dir, 'nginx.conf'), config(dir, port, site));
    return ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  };
  const { port, stop } = await startOnFreePort(command, args, () => read('error.log'));
  const rawAccessLog = () => read('access.log');
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    rawAccessLog,
    accessLog: async () => parseLog(await rawAccessLog()),
    close: stop,
  };
}

function parseLog(text: string): NginxLogLine[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = LINE.exec(line);
      if (!match) throw new Error(`unexpected nginx log line: ${line}`);
      const [, remotePort, request, protocol, status, apiKey, range, ifRange] = match.map(unescapeField);
      return { remotePort: Number(remotePort), request, protocol, status: Number(status), apiKey, range, ifRange } as NginxLogLine;
    });
}

/** nginx writes `"` and other bytes outside printable ASCII as `\xHH`. */
const unescapeField = (field = '') =>
  field.replace(/\\x([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
