/**
 * Through a real forward proxy: Debian's squid, started by the test on a free port, in front of an HTTPS API (nginx
 * passing to the mock) and an HTTPS file host (nginx), with a CA made for this run by openssl. Without squid, nginx
 * or openssl the tests are skipped, saying how to install them; under CI=true they fail instead.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { ProxyAgent } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { fakeMp4 } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { findNginx, NGINX_INSTALL_HINT, type Nginx, startNginx } from '../helpers/nginx.js';
import { findSquid, SQUID_INSTALL_HINT, type Squid, startSquid } from '../helpers/squid.js';
import { findCommand } from '../helpers/system-command.js';
import { makeTestCertificates, OPENSSL_INSTALL_HINT, type TestCertificates } from '../helpers/test-ca.js';

const closers = useCleanup();
const missing = [
  findSquid() ? '' : SQUID_INSTALL_HINT,
  findNginx() ? '' : NGINX_INSTALL_HINT,
  findCommand('openssl') ? '' : OPENSSL_INSTALL_HINT,
].filter(Boolean);
const runnable = missing.length === 0 || process.env.CI === 'true';
if (!runnable) console.warn(`test/networks/squid.test.ts skipped: ${missing.join('; ')}`);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'src/cli/index.ts');
const KEY = 'sk-squid-test-key-77e0c4f2';
const FILE = fakeMp4(1_500_000);
const SHA256 = createHash('sha256').update(FILE).digest('hex');

let dir: string;
let certificates: TestCertificates;
let mock: MockServer;
/** nginx over HTTPS passing every request to the mock's API. */
let api: Nginx;
/** nginx over HTTPS serving the file the content redirect points to. */
let files: Nginx;
let audio: string;

beforeAll(async () => {
  if (!runnable) return;
  dir = await mkdtemp(join(tmpdir(), 'avatar-squid-test-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  certificates = await makeTestCertificates(dir);
  await mkdir(join(dir, 'files'));
  await writeFile(join(dir, 'files', 'video.mp4'), FILE);
  audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
  mock = await startMockServer({ apiKey: KEY, processingMs: 200 });
  const tls = { cert: certificates.cert, key: certificates.key };
  [api, files] = await Promise.all([
    startNginx(join(dir, 'api'), { ...tls, proxyPass: mock.baseURL }),
    startNginx(join(dir, 'files-host'), { ...tls, root: join(dir, 'files') }),
  ]);
  closers.push(
    () => api.close(),
    () => files.close(),
    () => mock.close(),
  );
}, 30_000);

async function squid(options: Parameters<typeof startSquid>[0] = {}): Promise<Squid> {
  const proxy = await startSquid(options);
  closers.push(proxy.close);
  return proxy;
}

/** `generate` run by the CLI from the sources in a process of its own, trusting the run's CA from the environment. */
async function generate(env: Record<string, string | undefined>) {
  mock.failNext({ method: 'GET', path: /\/content$/ }, { status: 302, headers: { location: `${files.url}/video.mp4?sig=5e6f` } });
  const output = join(dir, `out-${Math.random().toString(16).slice(2)}.mp4`);
  const image = fileURLToPath(mockFixture('portrait.png'));
  const result = await spawnCli(CLI, ['generate', '--audio', audio, '--image', image, '-o', output], {
    cwd: ROOT,
    env: {
      NODE_OPTIONS: '--import tsx',
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      AVATAR_VIDEO_API_KEY: KEY,
      AVATAR_VIDEO_BASE_URL: api.url,
      ...Object.fromEntries(
        ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'].map((name) => [name, undefined]),
      ),
      ...env,
    },
  });
  return { result, output };
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/**
 * `list` through `proxy` to the HTTPS API in front of the mock, trusting the run's CA for the target; the
 * connections closed after it, so that squid logs its tunnels. Resolves to the page or the error.
 */
async function listThrough(proxy: string): Promise<unknown> {
  const dispatcher = new ProxyAgent({ uri: proxy, requestTls: { ca: [...rootCertificates, certificates.ca] } });
  const client = new AvatarVideo({ apiKey: KEY, baseURL: api.url, logLevel: 'off', dispatcher });
  try {
    return await client.videos.list({ limit: 1 }).catch((error: unknown) => error);
  } finally {
    await client.close();
    await dispatcher.close();
  }
}

(runnable ? describe : describe.skip)('squid as the forward proxy', { timeout: 60_000 }, () => {
  it("the CLI's generate goes through HTTPS_PROXY: every request to the API and the file host, and squid never sees the key", async () => {
    const proxy = await squid({ connectPorts: [api.port, files.port] });
    const [apiBefore, filesBefore] = [(await api.accessLog()).length, (await files.accessLog()).length];
    const { result, output } = await generate({ HTTPS_PROXY: proxy.url });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(await sha256(output)).toBe(SHA256);

    const tunnels = await proxy.accessLog();
    expect(new Set(tunnels.map((line) => `${line.method} ${line.url} ${line.result}`))).toEqual(
      new Set([`CONNECT 127.0.0.1:${api.port} TCP_TUNNEL/200`, `CONNECT 127.0.0.1:${files.port} TCP_TUNNEL/200`]),
    );
    // Every request nginx answered came over a connection squid opened: its port is one squid logged as its own.
    const squidPorts = new Set(tunnels.map((line) => line.serverSidePort));
    const seen = [...(await api.accessLog()).slice(apiBefore), ...(await files.accessLog()).slice(filesBefore)];
    expect(seen.map((line) => line.request.split(' ')[0])).toEqual(expect.arrayContaining(['POST', 'GET']));
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.filter((line) => !squidPorts.has(line.remotePort))).toEqual([]);
    expect(await proxy.rawAccessLog()).not.toContain(KEY);
    expect(await files.rawAccessLog()).not.toContain(KEY);
  });

  it('the CLI goes straight to the hosts NO_PROXY lists: squid logs nothing', async () => {
    const proxy = await squid({ connectPorts: [api.port, files.port] });
    const { result, output } = await generate({ HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(result.code).toBe(0);
    expect(await sha256(output)).toBe(SHA256);
    expect(await proxy.accessLog()).toEqual([]);
  });

  it('goes through a proxy that asks for credentials when they are in its URL, with requestTls for a private CA', async () => {
    const user = { name: 'avatar', password: 'pr0xy-pass-31' };
    const proxy = await squid({ connectPorts: [api.port], user });
    const withCredentials = proxy.url.replace('//', `//${user.name}:${user.password}@`);
    expect(await listThrough(withCredentials)).toMatchObject({ data: expect.any(Array) });
    expect((await proxy.accessLogOf(1)).map((line) => line.result)).toEqual(['TCP_TUNNEL/200']);
    expect(await proxy.rawAccessLog()).not.toContain(KEY);
  });

  it('a proxy refusing for want of credentials is a typed proxy error, after one attempt', async () => {
    const proxy = await squid({ connectPorts: [api.port], user: { name: 'avatar', password: 'pr0xy-pass-31' } });
    const error = await listThrough(proxy.url);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ code: 'proxy_auth', origin: 'api', host: `127.0.0.1:${api.port}` });
    expect((error as Error).message).toContain(`127.0.0.1:${proxy.port}`);
    // A retry would be logged within moments of the first refusal.
    expect((await proxy.accessLogOf(2, 500)).map((line) => line.result)).toEqual(['TCP_DENIED/407']);

    // The CLI says the same with --proxy (refused before any TLS, so no CA is needed), and gives the code to scripts.
    const cli = await runCli(['--json', '--proxy', proxy.url, '--base-url', api.url, 'list'], { env: { AVATAR_VIDEO_API_KEY: KEY } });
    expect(cli.code).toBe(1);
    expect(cli.json().error).toMatchObject({ type: 'APIConnectionError', code: 'proxy_auth' });
    expect(cli.stderr).toContain(`The proxy 127.0.0.1:${proxy.port} refused`);
    // The fix in the CLI's terms: the same command unchanged would be refused alike.
    expect(cli.json().error.fix).toBe(`put the proxy's credentials in its address: --proxy http://user:pass@127.0.0.1:${proxy.port}`);
    expect((await proxy.accessLogOf(3, 500)).map((line) => line.result)).toEqual(['TCP_DENIED/407', 'TCP_DENIED/407']);
    expect(await proxy.rawAccessLog()).not.toContain(KEY);
  });

  it("a stock squid's 403 for CONNECT to a port other than 443 is a typed proxy error, after one attempt", async () => {
    const proxy = await squid();
    const error = await listThrough(proxy.url);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ code: 'proxy_refused', origin: 'api', host: `127.0.0.1:${api.port}` });
    expect((error as Error).message).toContain(`127.0.0.1:${api.port}`);
    // A retry would be logged within moments of the first refusal.
    expect((await proxy.accessLogOf(2, 500)).map((line) => line.result)).toEqual(['TCP_DENIED/403']);
  });

  it('with proxyTunnel: false, an http:// address hands the proxy the key in clear (why the README says never)', async () => {
    const proxy = await squid();
    const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    const client = new AvatarVideo({ apiKey: KEY, baseURL: mock.baseURL, logLevel: 'off', dispatcher });
    closers.push(async () => {
      await client.close();
      await dispatcher.close();
    });
    await client.videos.list({ limit: 1 });
    const [line, ...more] = await proxy.accessLogOf(1);
    expect(more).toEqual([]);
    // squid logs the address without its query (strip_query_terms), and every header as the client sent it.
    expect(line).toMatchObject({ method: 'GET', url: `${mock.baseURL}/v1/videos?` });
    expect(line?.headers).toContain(KEY);
  });

  it("a private CA in the ProxyAgent's connect option is not used for the target: requestTls is", async () => {
    const proxy = await squid({ connectPorts: [api.port] });
    const dispatcher = new ProxyAgent({ uri: proxy.url, connect: { ca: certificates.ca } });
    const client = new AvatarVideo({ apiKey: KEY, baseURL: api.url, logLevel: 'off', dispatcher, maxRetries: 0 });
    closers.push(async () => {
      await client.close();
      await dispatcher.close();
    });
    const error = await client.videos.list({ limit: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(String((error as Error).message)).toMatch(/certificate/i);
  });
});
