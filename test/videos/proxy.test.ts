import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent } from 'undici';
import { expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { rawServer } from '../helpers/raw-server.js';

const closers = useCleanup();

/** A CONNECT-only proxy on loopback that records each tunnel's target. */
async function connectProxy() {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end('tunnels only'));
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host = '', port = ''] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { url, tunnels, close };
}

it('creates, waits and downloads through a CONNECT proxy given as `dispatcher`, never sending the key to the file host', async () => {
  const mock = await startMockServer({ processingMs: 0 });
  const proxy = await connectProxy();
  const agent = new ProxyAgent(proxy.url);
  const dir = await mkdtemp(join(tmpdir(), 'avatar-proxy-'));
  closers.push(
    () => agent.close(),
    proxy.close,
    mock.close,
    () => rm(dir, { recursive: true, force: true }),
  );
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', dispatcher: agent });
  const video = await client.videos.createAndWait(
    { audio_reference: wav(2), image_reference: mockFixture('portrait.png') },
    { pollInterval: 10 },
  );
  const target = join(dir, 'out.mp4');
  await client.videos.download(video, target);
  expect((await readFile(target)).subarray(4, 8).toString('latin1')).toBe('ftyp');

  const api = new URL(mock.baseURL).host;
  const cdn = new URL(mock.cdnURL).host;
  expect(new Set(proxy.tunnels)).toEqual(new Set([api, cdn]));
  const origins = mock.requests.map((r) => r.origin);
  expect(origins).toContain('cdn');
  expect(mock.requests.filter((r) => r.origin === 'cdn').every((r) => !r.hasApiKey)).toBe(true);
  expect(mock.requests.filter((r) => r.origin === 'api').every((r) => r.hasApiKey)).toBe(true);
  // The client leaves a dispatcher it was given open for its owner.
  await client.close();
  const again = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', dispatcher: agent });
  expect((await again.videos.retrieve(video.id)).status).toBe('COMPLETE');
});

it('sends each origin its own Host through the proxy, across the redirect to the file host', async () => {
  const cdn = await rawServer((_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end('bytes'));
  const api = await rawServer((_req, res) => res.writeHead(302, { location: `${cdn.url}/file.mp4?sig=1` }).end());
  const proxy = await connectProxy();
  const agent = new ProxyAgent(proxy.url);
  closers.push(() => agent.close(), proxy.close, api.close, cdn.close);
  const client = new AvatarVideo({ apiKey: 'sk-proxy-key-123', baseURL: api.url, logLevel: 'off', dispatcher: agent });
  const content = await client.videos.content('vid_1');
  for await (const _ of content.body);
  expect(cdn.requests.map((r) => [r.headers.host, r.headers['x-api-key']])).toEqual([[new URL(cdn.url).host, undefined]]);
  expect(api.requests.map((r) => r.headers.host)).toEqual([new URL(api.url).host]);
});
