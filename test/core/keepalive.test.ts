import { expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();

it('reuses keep-alive connections for sequential JSON requests (10 requests, at most 2 sockets)', async () => {
  const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
  const client = new AvatarVideo({ apiKey: 'sk-keepalive-1234', baseURL: api.url, logLevel: 'off' });
  closers.push(() => client.close(), api.close);
  for (let i = 0; i < 10; i++) await client.videos.retrieve('vid_1');
  expect(api.requests).toHaveLength(10);
  // undici may open a second socket when a request is sent while the first one still settles; never one each.
  expect(api.connections()).toBeLessThanOrEqual(2);
});
