import { expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo } from '../../src/index.js';
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

it('a client closed before its first request opens no pool: its requests fail as those of a closed client do', async () => {
  const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
  const client = new AvatarVideo({ apiKey: 'sk-closed-1234', baseURL: api.url, logLevel: 'off', maxRetries: 0 });
  closers.push(api.close);
  await client.close();
  await expect(client.videos.retrieve('vid_1')).rejects.toThrow(APIConnectionError);
  expect(api.connections()).toBe(0);
});
