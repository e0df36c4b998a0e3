/**
 * Both directions stream: the proxy, in a process of its own (proxy-child.ts), passes a 190 MB video reference to the
 * mock and a 100 MB answer to the browser while its resident memory grows by a fraction of that. The bound is
 * generous (a proxy that held the body would grow by at least its size); timing is not asserted.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { wav } from '../helpers/media.js';
import { rawServer } from '../helpers/raw-server.js';
import { writePaddedMp4 } from '../support/large-media.js';
import { startProxy } from './proxy-process.js';

const closers = useCleanup();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MB = 1_000_000;
/** The upload: near the proxy child's 200 MB limit, so a held body stands far apart from buffers and late GC. */
const UPLOAD = 190 * MB;
/**
 * Half the body. A proxy that held the upload grew by 75-95% of it (undici's fetch teeing the stream); one that
 * streams grows by buffers and garbage not yet collected: 36 MB on Node 20, 52 MB on Node 24 for 190 MB.
 */
const BOUND = UPLOAD / 2;

it('streams a 190 MB video reference to the API with bounded memory', { timeout: 120_000 }, async () => {
  const mock = await startMockServer({ processingMs: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'avatar-proxy-memory-'));
  closers.push(mock.close, () => rm(dir, { recursive: true, force: true }));
  const video = join(dir, 'reference.mp4');
  const bytes = await writePaddedMp4(join(ROOT, 'test/fixtures/media/mp4-10s-moov-end.mp4'), video, UPLOAD);
  const proxy = await startProxy(closers, mock.baseURL, mock.apiKey);
  const client = new AvatarVideo({ apiKey: 'not-the-key', baseURL: proxy.url, logLevel: 'off', maxRetries: 0 });
  closers.push(() => client.close());

  await client.videos.create({ audio_reference: wav(2), image_reference: join(ROOT, 'test/fixtures/mock/portrait.png') }); // warm-up
  const { rss } = await proxy.ask('reset');
  const created = await client.videos.create({ audio_reference: wav(12), video_reference: video });
  const { peak } = await proxy.ask('peak');

  expect(bytes).toBeGreaterThan(UPLOAD);
  expect(mock.getVideo(created.id)?.generation_mode).toBe('video_to_video');
  expect(Number(peak ?? 0) - Number(rss ?? 0)).toBeLessThan(BOUND);
});

it('streams a 100 MB answer from the API to the browser with bounded memory', { timeout: 120_000 }, async () => {
  const chunk = new Uint8Array(MB).fill(32);
  const api = await rawServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 100; i++) if (!res.write(chunk)) await once(res, 'drain');
    res.end();
  });
  closers.push(api.close);
  const proxy = await startProxy(closers, api.url, 'key');
  await (await fetch(`${proxy.url}/v1/videos/warm`)).arrayBuffer();
  const { rss } = await proxy.ask('reset');
  let received = 0;
  const answer = await fetch(`${proxy.url}/v1/videos/big`);
  for await (const part of answer.body as unknown as AsyncIterable<Uint8Array>) received += part.byteLength;
  const { peak } = await proxy.ask('peak');

  expect(received).toBe(100 * MB);
  // The answer passes through a web stream the proxy never gathers: a few MB of buffers, far from its 100 MB.
  expect(Number(peak ?? 0) - Number(rss ?? 0)).toBeLessThan(40 * MB);
});
