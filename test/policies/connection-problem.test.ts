import { Agent, EnvHttpProxyAgent, ProxyAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type ConnectionProblem,
  OutputPathError,
  VideoFailedError,
} from '../../src/errors.js';
import { diagnose, proxyOf } from '../../src/internal/connection-problem.js';
import { isRetryable, unsent } from '../../src/internal/retry.js';
import { bodyIdleLimit } from '../../src/lib/download.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();

/** An error shaped as Node or undici raise it: a message, a code, maybe a cause and connect details. */
const failure = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);
const api = { origin: 'api', host: 'api.example.com' } as const;
const fileHost = { origin: 'file-host', host: 'cdn.example.com' } as const;
const proxy = new URL('http://user:hunter2@proxy.internal:3128');

describe('diagnose', () => {
  it.each([
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  ])('reads %s as tls_certificate, naming the server and how to trust a CA', (code) => {
    const found = diagnose(failure('self-signed certificate', { code }), fileHost);
    expect(found?.code).toBe('tls_certificate');
    expect(found?.message).toContain(
      `The TLS certificate of the file host cdn.example.com is not trusted: self-signed certificate (${code}).`,
    );
    expect(found?.message).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem before Node starts');
    expect(found?.message).toContain('new Agent({ connect: { ca } })');
    expect(found?.message).toContain('new ProxyAgent({ uri, requestTls: { ca } })');
  });

  it('finds the certificate code in a cause (undici wraps a proxy tunnel TLS failure)', () => {
    const inner = failure("Hostname/IP does not match certificate's altnames", { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const wrapped = failure('Secure Proxy Connection failed', { code: 'UND_ERR_PRX_TLS', cause: inner });
    expect(diagnose(wrapped, api)?.code).toBe('tls_certificate');
  });

  it.each([
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'C0:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'C0:error:0A0000C6:SSL routines:tls_get_more_records:packet length too long'],
  ])('reads %s (https against plain http) as tls_protocol, without the raw OpenSSL text', (code, message) => {
    const found = diagnose(failure(message, { code }), api);
    expect(found?.code).toBe('tls_protocol');
    expect(found?.message).toMatch(
      /^The API at api\.example\.com does not speak TLS on that port \(OpenSSL: [a-z ]+\): is the base URL http:\/\//,
    );
    expect(found?.message).not.toContain('SSL routines');
    expect(diagnose(failure(message, { code }), fileHost)?.message).toContain('is the address http://');
  });

  it("reads undici's tunnel refusal as proxy_auth (407) or proxy_refused (any other), naming proxy and target, never the proxy's password", () => {
    const refusal = (status: number) => failure(`Proxy response (${status}) !== 200 when HTTP Tunneling`, { code: 'UND_ERR_ABORTED' });
    const auth = diagnose(refusal(407), { ...api, proxy });
    expect(auth?.code).toBe('proxy_auth');
    expect(auth?.message).toContain('The proxy proxy.internal:3128 refused to connect to the API at api.example.com');
    expect(auth?.message).toContain('http://user:pass@proxy.internal:3128');
    const refused = diagnose(refusal(403), { ...fileHost, proxy });
    expect(refused?.code).toBe('proxy_refused');
    expect(refused?.message).toContain('refused to connect to the file host cdn.example.com: it answered 403');
    expect(refused?.message).toContain('allows CONNECT to port 443 only');
    for (const found of [auth, refused]) expect(found?.message).not.toContain('hunter2');
    // Without a proxy agent, the same words are no proxy's.
    expect(diagnose(refusal(407), api)).toBeUndefined();
  });

  it('reads a failure to reach the proxy itself as proxy_unreachable, and one to reach the target as none', () => {
    const refused = (port: number, address = '10.0.0.9') =>
      failure(`connect ECONNREFUSED ${address}:${port}`, { code: 'ECONNREFUSED', address, port });
    const down = diagnose(refused(3128), { ...api, proxy });
    expect(down?.code).toBe('proxy_unreachable');
    expect(down?.message).toContain(
      'Could not reach the proxy proxy.internal:3128 (ECONNREFUSED) on the way to the API at api.example.com',
    );
    const dns = failure('getaddrinfo ENOTFOUND proxy.internal', { code: 'ENOTFOUND', hostname: 'proxy.internal' });
    expect(diagnose(dns, { ...api, proxy })?.code).toBe('proxy_unreachable');
    // Node's connect to several addresses fails as an AggregateError of each.
    const both = Object.assign(new AggregateError([refused(3128, '::1'), refused(3128)], ''), { code: 'ECONNREFUSED' });
    expect(diagnose(both, { ...api, proxy })?.code).toBe('proxy_unreachable');
    const timeout = failure('Connect Timeout Error (attempted address: proxy.internal:3128, timeout: 10000ms)', {
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
    expect(diagnose(timeout, { ...api, proxy })?.code).toBe('proxy_unreachable');
    // Going around the proxy (NO_PROXY), the target's own refusal is a plain connection error.
    expect(diagnose(refused(443), { ...api, proxy })).toBeUndefined();
    expect(diagnose(refused(3128), api)).toBeUndefined();
    expect(diagnose(failure('other side closed', { code: 'UND_ERR_SOCKET' }), { ...api, proxy })).toBeUndefined();
  });
});

describe('proxyOf', () => {
  it("finds the proxy of undici's ProxyAgent and EnvHttpProxyAgent (per protocol), and none for an Agent", () => {
    const agent = new ProxyAgent('http://user:pw@proxy.internal:3128');
    const env = new EnvHttpProxyAgent({ httpProxy: 'http://plain.internal:8080', httpsProxy: 'http://secure.internal:8443' });
    const direct = new Agent();
    closers.push(
      () => agent.close(),
      () => env.close(),
      () => direct.close(),
    );
    expect(proxyOf(agent, new URL('https://api.example.com'))?.host).toBe('proxy.internal:3128');
    expect(proxyOf(env, new URL('https://api.example.com'))?.host).toBe('secure.internal:8443');
    expect(proxyOf(env, new URL('http://api.example.com'))?.host).toBe('plain.internal:8080');
    expect(proxyOf(direct, new URL('https://api.example.com'))).toBeUndefined();
  });
});

describe('retrying connection errors', () => {
  const error = (code: ConnectionProblem) => new APIConnectionError('x', { code });
  it.each(['tls_certificate', 'tls_protocol', 'proxy_auth', 'proxy_refused'] as const)(
    'never retries %s, even a read or an unsent create',
    (code) => {
      const failed = error(code);
      unsent.add(failed);
      expect(isRetryable('read', failed)).toBe(false);
      expect(isRetryable('create', failed)).toBe(false);
    },
  );
  it.each(['connection', 'proxy_unreachable'] as const)('retries a read after %s', (code) => {
    expect(isRetryable('read', error(code))).toBe(true);
  });
  it('gives a timeout the code timeout', () => {
    expect(new APIConnectionTimeoutError().code).toBe('timeout');
    expect(isRetryable('read', new APIConnectionTimeoutError())).toBe(true);
  });
});

describe('toJSON', () => {
  it('keeps every error’s message and its own public fields, for JSON.stringify', () => {
    const connection = new APIConnectionError('Connection error: refused.', {
      code: 'proxy_unreachable',
      origin: 'file-host',
      host: 'cdn.example.com',
    });
    expect(JSON.parse(JSON.stringify(connection))).toEqual({
      name: 'APIConnectionError',
      message: 'Connection error: refused.',
      code: 'proxy_unreachable',
      origin: 'file-host',
      host: 'cdn.example.com',
    });
    const answered = new APIError({
      status: 410,
      message: 'gone',
      code: 'file_expired',
      headers: {},
      body: undefined,
      origin: 'file-host',
      host: 'cdn.example.com',
    });
    expect(JSON.parse(JSON.stringify(answered))).toMatchObject({
      name: 'APIError',
      message: 'gone',
      status: 410,
      origin: 'file-host',
      host: 'cdn.example.com',
    });
    const path = new OutputPathError('/x/out.mp4', 'folder_missing', 'the folder /x does not exist');
    expect(JSON.parse(JSON.stringify(path))).toMatchObject({ name: 'OutputPathError', message: path.message, code: 'folder_missing' });
    const failed = new VideoFailedError({ id: 'vid_1', status: 'FAILED', error: { code: 'bad', message: 'no face' } } as never);
    expect(JSON.parse(JSON.stringify(failed)).message).toBe('Video vid_1 failed (bad): no face');
  });
});

describe('bodyIdleLimit', () => {
  it('is a quarter of the timeout, at most 15 s', () => {
    expect(bodyIdleLimit(60_000)).toBe(15_000);
    expect(bodyIdleLimit(600_000)).toBe(15_000);
    expect(bodyIdleLimit(2_000)).toBe(500);
  });
});
