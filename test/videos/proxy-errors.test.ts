/**
 * A proxy's failures through undici's ProxyAgent and EnvHttpProxyAgent, over loopback: a proxy answering CONNECT with
 * 407 or 403, and one that is not there. Each is typed, says it is the proxy, names the target, and never the proxy's
 * password or the key.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EnvHttpProxyAgent, ProxyAgent } from 'undici';
import { expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { rawServer } from '../helpers/raw-server.js';

const KEY = 'sk-proxy-secret-123';
const PASSWORD = 'hunter2-proxy-pw';
const closers = useCleanup();

/** A proxy that answers every CONNECT with `status`, recording each tunnel asked for. */
async function refusingProxy(status: number, reason: string) {
  const tunnels: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket: Socket) => {
    tunnels.push(req.url ?? '');
    socket.on('error', () => {});
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { host, tunnels };
}

/** A client for `baseURL` through `dispatcher`, closed with the test. */
function through(dispatcher: ProxyAgent | EnvHttpProxyAgent, baseURL: string) {
  const allowInsecureHttp = baseURL.startsWith('http:');
  const client = new AvatarVideo({ apiKey: KEY, baseURL, logLevel: 'off', dispatcher, maxRetryDelay: 20, allowInsecureHttp });
  closers.push(
    () => client.close(),
    () => dispatcher.close(),
  );
  return client;
}

/** The error of a retrieve, checked for what every proxy error keeps out. */
async function failure(client: AvatarVideo) {
  const error = await client.videos.retrieve('vid_1').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIConnectionError);
  for (const text of [(error as Error).message, JSON.stringify(error)]) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(KEY);
  }
  expect(JSON.parse(JSON.stringify(error)).message).toBe((error as Error).message);
  return error as APIConnectionError;
}

it('a proxy answering 407 is proxy_auth after one attempt, naming proxy and target, never its password', async () => {
  const proxy = await refusingProxy(407, 'Proxy Authentication Required');
  const agent = new ProxyAgent(`http://user:${PASSWORD}@${proxy.host}`);
  const error = await failure(through(agent, 'https://api.example.test:8443'));
  expect(error).toMatchObject({ code: 'proxy_auth', origin: 'api', host: 'api.example.test:8443' });
  expect(error.message).toBe(
    `The proxy ${proxy.host} refused to connect to the API at api.example.test:8443: it answered 407 Proxy Authentication Required. ` +
      `Put the proxy's credentials in its URL (http://user:pass@${proxy.host}).`,
  );
  // Not retried: the default maxRetries (2) would have asked three times.
  expect(proxy.tunnels).toEqual(['api.example.test:8443']);
});

it("a proxy answering 403 to a plain-http address (undici's ProxyAgent tunnels it too) is proxy_refused after one attempt", async () => {
  const proxy = await refusingProxy(403, 'Forbidden');
  const error = await failure(through(new ProxyAgent(`http://${proxy.host}`), 'http://api.example.test:4010'));
  expect(error).toMatchObject({ code: 'proxy_refused', origin: 'api', host: 'api.example.test:4010' });
  expect(error.message).toContain(`The proxy ${proxy.host} refused to connect to the API at api.example.test:4010: it answered 403.`);
  expect(error.message).toContain('does not allow that host or port');
  expect(proxy.tunnels).toEqual(['api.example.test:4010']);
});

it('the proxy from the environment (EnvHttpProxyAgent) is read the same way', async () => {
  const proxy = await refusingProxy(407, 'Proxy Authentication Required');
  const agent = new EnvHttpProxyAgent({ httpsProxy: `http://user:${PASSWORD}@${proxy.host}`, noProxy: '' });
  const error = await failure(through(agent, 'https://api.example.test'));
  expect(error).toMatchObject({ code: 'proxy_auth', host: 'api.example.test' });
  expect(proxy.tunnels).toHaveLength(1);
});

it('a proxy that is not there is proxy_unreachable, not the service being down', async () => {
  const gone = await rawServer(() => {});
  const host = new URL(gone.url).host;
  await gone.close(); // its port now refuses connections
  const agent = new ProxyAgent(`http://user:${PASSWORD}@${host}`);
  const client = through(agent, 'https://api.example.test');
  const error = await client.videos.retrieve('vid_1', { maxRetries: 0 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIConnectionError);
  expect(error).toMatchObject({ code: 'proxy_unreachable', origin: 'api', host: 'api.example.test' });
  expect((error as Error).message).toBe(
    `Could not reach the proxy ${host} (ECONNREFUSED) on the way to the API at api.example.test: the proxy, not the service, is down or unreachable.`,
  );
});
