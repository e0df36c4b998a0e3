/**
 * Downloads from a real file host: Debian's nginx over HTTPS, with a CA made for this run by openssl, started by
 * the test on a free port. The mock API's content redirect points at it. Without nginx or openssl the tests are
 * skipped, saying how to install them; under CI=true they fail instead.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { fakeMp4 } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { findNginx, NGINX_INSTALL_HINT, type Nginx, startNginx } from '../helpers/nginx.js';
import { findCommand } from '../helpers/system-command.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { makeTestCertificates, OPENSSL_INSTALL_HINT, type TestCertificates } from '../helpers/test-ca.js';

const closers = useCleanup();
const missing = [findNginx() ? '' : NGINX_INSTALL_HINT, findCommand('openssl') ? '' : OPENSSL_INSTALL_HINT].filter(Boolean);
const runnable = missing.length === 0 || process.env.CI === 'true';
if (!runnable) console.warn(`test/networks/nginx.test.ts skipped: ${missing.join('; ')}`);

const KEY = 'sk-nginx-test-key-5d1c93ab';
const FILE = fakeMp4(3_000_000);
const SHA256 = createHash('sha256').update(FILE).digest('hex');
const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

let dir: string;
let certificates: TestCertificates;
let mock: MockServer;
let trusted: Nginx;
let videoId: string;

beforeAll(async () => {
  if (!runnable) return;
  dir = await mkdtemp(join(tmpdir(), 'avatar-nginx-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  certificates = await makeTestCertificates(dir);
  await mkdir(join(dir, 'files'));
  await writeFile(join(dir, 'files', 'video.mp4'), FILE);
  trusted = await startNginx(join(dir, 'trusted'), { cert: certificates.cert, key: certificates.key, root: join(dir, 'files') });
  mock = await startMockServer({ apiKey: KEY, processingMs: 0 });
  closers.push(
    () => trusted.close(),
    () => mock.close(),
  );
  videoId = await completeVideo();
}, 30_000);

/** A new COMPLETE video on the mock. */
async function completeVideo(): Promise<string> {
  const client = new AvatarVideo({ apiKey: KEY, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(() => client.close());
  const image_reference = fileURLToPath(mockFixture('portrait.png'));
  return (await client.videos.createAndWait({ audio_reference: wav(1), image_reference }, { pollInterval: 10 })).id;
}

/**
 * The next `times` content requests of video `id` redirect to `host` (an https origin), as a service's signed
 * address would.
 */
function redirectContentTo(host: string, id = videoId, times = 1): void {
  const location = `${host}/video.mp4?sig=0a1b`;
  mock.failNext({ method: 'GET', path: `/v1/videos/${id}/content` }, { status: 302, headers: { location }, times });
}

/** A client that trusts the run's CA (beside the public ones) through its dispatcher, as the README shows. */
function trustingClient(options: { maxRetries?: number } = {}, agent: { allowH2?: boolean } = {}) {
  const ca = [...rootCertificates, certificates.ca];
  const dispatcher = new Agent({ connect: { ca }, ...agent });
  const client = new AvatarVideo({ apiKey: KEY, baseURL: mock.baseURL, logLevel: 'off', dispatcher, ...options });
  closers.push(async () => {
    await client.close();
    await dispatcher.close();
  });
  return client;
}

async function expectNoKeyIn(nginx: Nginx) {
  const log = await nginx.rawAccessLog();
  expect(log).toContain('GET /video.mp4');
  expect(log).not.toContain(KEY);
  expect((await nginx.accessLog()).every((line) => line.apiKey === '-')).toBe(true);
}

(runnable ? describe : describe.skip)('nginx over HTTPS as the file host', { timeout: 30_000 }, () => {
  it('downloads the exact file with the CA on the dispatcher, and nginx never sees the key', async () => {
    redirectContentTo(trusted.url);
    const output = join(dir, 'with-agent.mp4');
    const result = await trustingClient().videos.download(videoId, output);
    expect(result.bytes).toBe(FILE.byteLength);
    expect(await sha256(output)).toBe(SHA256);
    await expectNoKeyIn(trusted);
  });

  it('downloads the exact file in a process started with NODE_EXTRA_CA_CERTS', async () => {
    redirectContentTo(trusted.url);
    const output = join(dir, 'with-env.mp4');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('../helpers/download-child.ts', import.meta.url)), mock.baseURL, videoId, output],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { ...process.env, NODE_EXTRA_CA_CERTS: certificates.caFile, AVATAR_VIDEO_API_KEY: KEY },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    await once(child, 'close');
    expect(JSON.parse(stdout)).toEqual({ ok: true, bytes: FILE.byteLength });
    expect(await sha256(output)).toBe(SHA256);
    await expectNoKeyIn(trusted);
  });

  it('downloads the exact file over HTTP/2 with allowH2, and over HTTP/1.1 without it', async () => {
    const h2 = await startNginx(join(dir, 'h2'), { cert: certificates.cert, key: certificates.key, root: join(dir, 'files'), http2: true });
    closers.push(() => h2.close());
    for (const allowH2 of [true, false]) {
      redirectContentTo(h2.url);
      const output = join(dir, `h2-${allowH2}.mp4`);
      await trustingClient({}, { allowH2 }).videos.download(videoId, output);
      expect(await sha256(output)).toBe(SHA256);
    }
    expect((await h2.accessLog()).map((line) => line.protocol)).toEqual(['HTTP/2.0', 'HTTP/1.1']);
    await expectNoKeyIn(h2);
  });

  it('resumes a transfer cut by the network with If-Range, and saves the exact file', async () => {
    const before = (await trusted.accessLog()).length;
    const relay = await startTcpRelay(trusted.port, { cutAfter: 1_200_000 });
    closers.push(relay.close);
    redirectContentTo(`https://127.0.0.1:${relay.port}`);
    const output = join(dir, 'resumed.mp4');
    const result = await trustingClient().videos.download(videoId, output);
    expect(result.bytes).toBe(FILE.byteLength);
    expect(await sha256(output)).toBe(SHA256);
    expect(relay.connections).toBe(2);
    const [first, second, ...more] = (await trusted.accessLog()).slice(before);
    expect(more).toEqual([]);
    expect(first).toMatchObject({ request: expect.stringMatching(/^GET \/video\.mp4\?sig=0a1b /), range: '-', apiKey: '-' });
    expect(second?.status).toBe(206);
    expect(second?.range).toMatch(/^bytes=\d+-$/);
    const resumedAt = Number(/\d+/.exec(second?.range ?? '')?.[0]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThan(FILE.byteLength);
    // nginx's own ETag, "<mtime>-<size>" in hex, from the first answer.
    expect(second?.ifRange).toMatch(new RegExp(`^"[0-9a-f]+-${FILE.byteLength.toString(16)}"$`));
    await expectNoKeyIn(trusted);
  });

  it('fails after one attempt, naming the file host, when its certificate is not trusted', async () => {
    const untrusted = await startNginx(join(dir, 'untrusted'), {
      cert: certificates.untrustedCert,
      key: certificates.untrustedKey,
      root: join(dir, 'files'),
    });
    const relay = await startTcpRelay(untrusted.port);
    closers.push(() => untrusted.close(), relay.close);
    const host = `127.0.0.1:${relay.port}`;
    // A video of its own: a retry would ask for the address again, and get it again (3 times: the client's 2 retries).
    const id = await completeVideo();
    redirectContentTo(`https://${host}`, id, 3);
    const error = await trustingClient({ maxRetries: 2 })
      .videos.download(id, join(dir, 'untrusted.mp4'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ origin: 'file-host', host, code: 'tls_certificate' });
    const { message } = error as Error;
    expect(message).toContain(host);
    expect(message).toContain('NODE_EXTRA_CA_CERTS');
    expect(message).not.toContain('sig=0a1b');
    expect(relay.connections).toBe(1);
    expect(await untrusted.rawAccessLog()).toBe('');
  });
});
