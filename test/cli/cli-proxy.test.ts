/**
 * The CLI's proxy settings, without a proxy running: a proxy address that refuses connections shows which way a
 * request went. Through a real squid: test/networks/squid.test.ts.
 */
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { startMockServer } from '../../src/testing/index.js';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const NO_PROXY_ENV = { HTTP_PROXY: undefined, HTTPS_PROXY: undefined, http_proxy: undefined, https_proxy: undefined };

async function listThrough(env: Record<string, string | undefined>, args: string[] = []) {
  const mock = await startMockServer();
  closers.push(mock.close);
  const result = await runCli([...args, '--base-url', mock.baseURL, 'list'], {
    env: { ...NO_PROXY_ENV, NO_PROXY: undefined, no_proxy: undefined, AVATAR_VIDEO_API_KEY: mock.apiKey, ...env },
  });
  return { result, requests: mock.requests.length };
}

it.each(['HTTP_PROXY', 'http_proxy'])('sends requests through %s and says it is the proxy that refused', async (name) => {
  const port = await closedPort();
  const { result, requests } = await listThrough({ [name]: `http://127.0.0.1:${port}` });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Could not connect to the proxy 127.0.0.1:${port} (from ${name})`);
  expect(result.stderr).toContain('Is the proxy running');
  expect(result.stderr).not.toContain('Is the service running');
  expect(requests).toBe(0);
});

it('--proxy overrides HTTP_PROXY, and its credentials never reach the message', async () => {
  const [flag, env] = [await closedPort(), await closedPort()];
  const proxy = `http://someone:s3cret-proxy-pass@127.0.0.1:${flag}`;
  const { result, requests } = await listThrough({ HTTP_PROXY: `http://127.0.0.1:${env}` }, ['--proxy', proxy]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`the proxy 127.0.0.1:${flag} (from --proxy)`);
  expect(result.stderr).not.toContain('s3cret-proxy-pass');
  expect(requests).toBe(0);
});

it.each([
  ['NO_PROXY', {}],
  ['no_proxy', {}],
  ['NO_PROXY with --proxy', { flag: true }],
])('goes straight to a host %s lists', async (name, { flag }: { flag?: boolean }) => {
  const port = await closedPort();
  const proxy = `http://127.0.0.1:${port}`;
  const variable = name.split(' ')[0] as string;
  const env = flag ? { [variable]: '127.0.0.1' } : { HTTP_PROXY: proxy, [variable]: '127.0.0.1' };
  const { result, requests } = await listThrough(env, flag ? ['--proxy', proxy] : []);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(requests).toBe(1);
});

it("a service NO_PROXY exempts is reached directly, and its own refusal is said as the service's, naming no proxy", async () => {
  const [proxy, service] = [await closedPort(), await closedPort()];
  const result = await runCli(['--base-url', `http://127.0.0.1:${service}`, 'list'], {
    env: {
      ...NO_PROXY_ENV,
      HTTP_PROXY: `http://127.0.0.1:${proxy}`,
      NO_PROXY: '127.0.0.1',
      no_proxy: undefined,
      AVATAR_VIDEO_API_KEY: 'k',
    },
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Could not connect to 127.0.0.1:${service} (the service address`);
  expect(result.stderr).not.toContain('proxy');
});

it('refuses a --proxy that is not an http(s) address, before sending anything', async () => {
  const { result, requests } = await listThrough({}, ['--proxy', 'proxy.internal:3128']);
  expect(result.code).toBe(2);
  expect(result.stdout + result.stderr).toContain('expected a proxy address such as http://proxy.internal:3128');
  expect(requests).toBe(0);
});
