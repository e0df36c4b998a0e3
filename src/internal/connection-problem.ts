import type { ConnectionProblem, ErrorOrigin } from '../errors.js';

// Why a connection failed, read from undici's and Node's error codes: the kinds no retry can fix (a certificate, a
// port that speaks no TLS, a proxy's refusal) and a proxy that is down, each with a message that says where and why.

/** The attempt that failed: which server it was for, and the proxy it went through (if any). */
export interface FailedAttempt {
  origin: ErrorOrigin;
  /** The target's `URL.host`. */
  host: string;
  /** The proxy the dispatcher sends this target through, when it is a proxy agent. */
  proxy?: URL | undefined;
}

/** A kind other than a plain `connection` or `timeout` failure, and the message that says it. */
export interface Diagnosis {
  code: Exclude<ConnectionProblem, 'connection' | 'timeout'>;
  message: string;
}

/** Node's (OpenSSL's) codes for a certificate the client does not trust. */
const CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
/** OpenSSL's words for a TLS hello answered by something else (plain HTTP, most often). */
const NOT_TLS = /wrong version number|packet length too long|unknown protocol|http request/i;
/**
 * undici's ProxyAgent when the proxy answers CONNECT with anything but 200, or (not tunnelling, `proxyTunnel: false`)
 * a forwarded request with 407.
 */
const PROXY_ANSWER = /^(?:Proxy response \((\d{3})\) !== 200 when HTTP Tunneling|Proxy Authentication Required \((407)\))/;
/** Failures to open a connection at all: no byte of the request left (a create may be sent again). */
export const NOT_CONNECTED: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Failures to reach a server: those, and a connection that timed out (which may have sent something). */
const UNREACHABLE = new Set([...NOT_CONNECTED, 'ETIMEDOUT']);

/** The error and its causes (and an AggregateError's members: Node's connect tries each address). */
function chain(error: unknown): Record<string, unknown>[] {
  const links: Record<string, unknown>[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 5 || !value || typeof value !== 'object' || links.includes(value as Record<string, unknown>)) return;
    const link = value as Record<string, unknown>;
    links.push(link);
    if (Array.isArray(link.errors)) for (const member of link.errors) visit(member, depth + 1);
    visit(link.cause, depth + 1);
  };
  visit(error, 0);
  return links;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** `the API at api.example.com` or `the file host cdn.example.com`. */
export function describeServer(origin: ErrorOrigin, host: string): string {
  return origin === 'api' ? `the API at ${host}` : `the file host ${host}`;
}

/** Whether a failed connect (`link`) was to the proxy: its port, host name or attempted address is the proxy's. */
function toProxy(link: Record<string, unknown>, proxy: URL): boolean {
  const port = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
  const hostname = proxy.hostname.replace(/^\[|\]$/g, '');
  if (link.port === port || text(link.hostname) === hostname) return true;
  // undici's connect timeout names only `attempted address: host:port` in its message.
  return text(link.message).includes(`attempted address: ${hostname}:${port}`);
}

const CA_ADVICE =
  'If a CA of your own signs it, set NODE_EXTRA_CA_CERTS=/path/ca.pem before Node starts (or run Node with ' +
  '--use-system-ca, where it has that flag, to trust the system store), or give the client a dispatcher that trusts it: ' +
  'new Agent({ connect: { ca } }) (through a proxy: new ProxyAgent({ uri, requestTls: { ca } })).';

/** The kind of a connection failure no plain retry handles, or undefined for a plain connection error or timeout. */
export function diagnose(error: unknown, at: FailedAttempt): Diagnosis | undefined {
  const links = chain(error);
  const server = describeServer(at.origin, at.host);
  const certificate = links.find((link) => CERTIFICATE.has(text(link.code)));
  if (certificate) {
    // Node 22.15+ appends its own hint after a `;` (`--use-system-ca`); the advice below covers every Node.
    const said = text(certificate.message).split(';')[0]?.trim();
    const why = `${said || 'untrusted certificate'} (${text(certificate.code)})`;
    return { code: 'tls_certificate', message: `The TLS certificate of ${server} is not trusted: ${why}. ${CA_ADVICE}` };
  }
  const plain = links.find((link) => text(link.code).startsWith('ERR_SSL_') && NOT_TLS.test(text(link.message)));
  if (plain) {
    const said = NOT_TLS.exec(text(plain.message))?.[0].toLowerCase();
    const address = at.origin === 'api' ? 'base URL' : 'address';
    return {
      code: 'tls_protocol',
      message: `${capitalize(server)} does not speak TLS on that port (OpenSSL: ${said}): is the ${address} http:// rather than https://?`,
    };
  }
  const proxied = at.proxy && proxyProblem(links, at.proxy, server);
  return proxied || undefined;
}

function proxyProblem(links: Record<string, unknown>[], proxy: URL, server: string): Diagnosis | undefined {
  const answers = links.map((link) => PROXY_ANSWER.exec(text(link.message)));
  const answered = answers.map((found) => found?.[1] ?? found?.[2]).find(Boolean);
  if (answered === '407') {
    const example = `${proxy.protocol}//user:pass@${proxy.host}`;
    return {
      code: 'proxy_auth',
      message: `The proxy ${proxy.host} refused to connect to ${server}: it answered 407 Proxy Authentication Required. Put the proxy's credentials in its URL (${example}).`,
    };
  }
  if (answered) {
    return {
      code: 'proxy_refused',
      message: `The proxy ${proxy.host} refused to connect to ${server}: it answered ${answered}. The proxy does not allow that host or port (a stock squid allows CONNECT to port 443 only).`,
    };
  }
  const down = links.find((link) => UNREACHABLE.has(text(link.code)) && toProxy(link, proxy));
  if (!down) return undefined;
  return {
    code: 'proxy_unreachable',
    message: `Could not reach the proxy ${proxy.host} (${text(down.code)}) on the way to ${server}: the proxy, not the service, is down or unreachable.`,
  };
}

const capitalize = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

/** The proxy `dispatcher` sends `target` through, when it is undici's ProxyAgent or EnvHttpProxyAgent. */
export function proxyOf(dispatcher: object, target: URL): URL | undefined {
  // undici keeps a proxy's address under symbols (the same in any copy of undici): read, never changed.
  const field = (owner: object, description: string) => {
    const symbol = Object.getOwnPropertySymbols(owner).find((s) => s.description === description);
    return symbol === undefined ? undefined : (owner as Record<symbol, unknown>)[symbol];
  };
  const env = field(dispatcher, target.protocol === 'https:' ? 'https proxy agent' : 'http proxy agent');
  const agent = env && typeof env === 'object' ? env : dispatcher;
  const uri = (field(agent, 'proxy agent options') as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string') return undefined;
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}
