import { describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, AvatarVideo, WaitTimeoutError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();

async function serve(handler: Parameters<typeof rawServer>[0]) {
  const server = await rawServer(handler);
  // The client's own timeout stays long: only the per-call option can end an attempt quickly.
  const client = new AvatarVideo({ apiKey: 'key-options-1', baseURL: server.url, logLevel: 'off', timeout: 60_000 });
  closers.push(server.close, () => client.close());
  return { server, client };
}

const params = () => ({ audio_reference: wav(2), image_reference: readMockFixture('portrait.png') });

describe('createAndWait and generate take the request options of create', () => {
  it('sends `headers` with the create, not with the polls', async () => {
    const { server, client } = await serve((req, res) => {
      req.resume();
      req.on('end', () => json(res, 200, video('vid_1', { status: req.method === 'POST' ? 'PROCESSING' : 'COMPLETE', progress: 100 })));
    });
    const done = await client.videos.createAndWait(params(), { validate: false, headers: { 'x-trace': 'trace-1' }, pollInterval: 10 });
    expect(done.status).toBe('COMPLETE');
    expect(server.requests.map((r) => [r.method, r.headers['x-trace']])).toEqual([
      ['POST', 'trace-1'],
      ['GET', undefined],
    ]);
  });

  it('`timeout` bounds the create attempt (and is not the wait deadline)', async () => {
    const { server, client } = await serve((req) => req.resume()); // never answers
    const error = await client.videos
      .generate(params(), { output: 'never.mp4', validate: false, timeout: 100, maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it('`waitTimeout` bounds the wait, after a create that succeeded', async () => {
    const { client } = await serve((req, res) => {
      req.resume();
      req.on('end', () => json(res, 200, video('vid_2')));
    });
    const error = await client.videos
      .createAndWait(params(), { validate: false, timeout: 5_000, waitTimeout: 50, pollInterval: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ video: { id: 'vid_2' } });
  });
});
