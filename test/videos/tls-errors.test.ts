/**
 * TLS failures over real loopback sockets: a self-signed certificate (made per run by test/helpers/test-ca.ts) at the
 * API and at the file host, and https against a plain-http port. Each is typed, names where it happened, and is
 * tried once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';
import { makeTestCertificates } from '../helpers/test-ca.js';

const KEY = 'sk-tls-secret-123';
const closers = useCleanup();
let dir: string;
let tls: { key: Buffer; cert: Buffer };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-tls-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  // The self-signed certificate of the run's throwaway CA: nothing trusts it.
  const made = await makeTestCertificates(dir);
  tls = { key: await readFile(made.untrustedKey), cert: await readFile(made.untrustedCert) };
});

/** An https server with the self-signed certificate, counting TCP connections. */
async function selfSigned(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(tls, handler);
  let connections = 0;
  server.on('connection', () => connections++);
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url, host: new URL(url).host, connections: () => connections };
}

const client = (baseURL: string) => {
  const made = new AvatarVideo({ apiKey: KEY, baseURL, logLevel: 'off', maxRetryDelay: 20 });
  closers.push(() => made.close());
  return made;
};

it('an untrusted certificate at the API is tls_certificate of the API, tried once, with how to trust a CA', async () => {
  const server = await selfSigned((_req, res) => json(res, 200, video()));
  const error = await client(server.url)
    .videos.retrieve('vid_1')
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIConnectionError);
  expect(error).toMatchObject({ code: 'tls_certificate', origin: 'api', host: server.host });
  const { message } = error as APIConnectionError;
  expect(message).toContain(
    `The TLS certificate of the API at ${server.host} is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT).`,
  );
  expect(message).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem before Node starts');
  expect(message).toContain('new Agent({ connect: { ca } })');
  // The default maxRetries is 2: a retried failure would have connected 3 times.
  expect(server.connections()).toBe(1);
  expect(JSON.parse(JSON.stringify(error))).toMatchObject({ message, code: 'tls_certificate', host: server.host });
});

it('an untrusted certificate at the file host is tls_certificate of the file host, tried once, naming the video', async () => {
  const fileHost = await selfSigned((_req, res) => res.end('never'));
  const api = await rawServer((req, res) => {
    if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }));
    res.writeHead(302, { location: `${fileHost.url}/files/vid_1.mp4?sig=s3cr3t` });
    res.end();
  });
  closers.push(api.close);
  const error = await client(api.url)
    .videos.download('vid_1', join(dir, 'out.mp4'))
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIConnectionError);
  expect(error).toMatchObject({ code: 'tls_certificate', origin: 'file-host', host: fileHost.host, videoId: 'vid_1' });
  const { message } = error as APIConnectionError;
  expect(message).toContain(`The TLS certificate of the file host ${fileHost.host} is not trusted: self-signed certificate`);
  expect(message).toContain("call videos.download('vid_1', path)");
  expect(message).not.toContain('sig=');
  expect(fileHost.connections()).toBe(1);
  expect(api.requests.filter((r) => r.url.endsWith('/content'))).toHaveLength(1);
});

it('https against a port that speaks plain http is tls_protocol, tried once, asking whether the base URL is http://', async () => {
  const plain = await rawServer((_req, res) => json(res, 200, video()));
  closers.push(plain.close);
  const host = new URL(plain.url).host;
  const error = await client(`https://${host}`)
    .videos.retrieve('vid_1')
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIConnectionError);
  expect(error).toMatchObject({ code: 'tls_protocol', origin: 'api', host });
  const { message } = error as APIConnectionError;
  expect(message).toMatch(
    new RegExp(
      `^The API at ${host} does not speak TLS on that port \\(OpenSSL: [a-z ]+\\): is the base URL http:// rather than https://\\?$`,
    ),
  );
  expect(plain.connections()).toBe(1);
});
