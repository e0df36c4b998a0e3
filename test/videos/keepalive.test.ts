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

it('close() never throws, even where the pool has no close (as under Bun): it warns and resolves', async () => {
  // Bun's undici Agent has no `close`; closing there threw a bare TypeError, hiding the error a `finally` ran after.
  const { Agent } = await import('undici');
  Object.defineProperty(Agent.prototype, 'close', { value: undefined, configurable: true, writable: true });
  closers.push(() => Reflect.deleteProperty(Agent.prototype, 'close'));
  const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
  await api.close();
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (line: string) => warnings.push(line), error() {} };
  const client = new AvatarVideo({ apiKey: 'sk-close-1234', baseURL: api.url, logger, maxRetries: 0 });
  await expect(client.videos.retrieve('vid_1')).rejects.toThrow(APIConnectionError);
  await expect(client.close()).resolves.toBeUndefined();
  expect(warnings).toEqual([expect.stringMatching(/The client's connection pool could not be closed \(.*close.*\); it is dropped\.$/)]);
});
