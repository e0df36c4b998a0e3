/**
 * The `fetch` client option: a user's own fetch sees every request of a whole `generate` against the mock (the API and
 * the file host), the key never on a request to the file host; a `dispatcher` where it cannot apply is refused with
 * the reason. The transport's cases run on both implementations in transport/redirect/download/create-abort.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { expect, it } from 'vitest';
import { APIConnectionError, AvatarVideo, InvalidArgumentError } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture } from '../helpers/media.js';

const closers = useCleanup();

/** A fetch that records each request's method, address and whether it carried the key, then sends it. */
function countingFetch() {
  const calls: { method: string; url: string; key: boolean }[] = [];
  const fetch = (input: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    calls.push({ method: init.method ?? 'GET', url: input, key: headers.has('x-api-key') });
    return globalThis.fetch(input, init);
  };
  return { calls, fetch };
}

it("sends every request of a generate through the user's fetch, the key only to the API", async () => {
  const server = await startMockServer({ processingMs: 50 });
  const { calls, fetch } = countingFetch();
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, fetch, logLevel: 'off' });
  const dir = await mkdtemp(join(tmpdir(), 'av-fetch-'));
  closers.push(
    () => client.close(),
    server.close,
    () => rm(dir, { recursive: true, force: true }),
  );
  const output = join(dir, 'out.mp4');
  const params = { audio_reference: readMockFixture('tone-2s.mp3'), image_reference: readMockFixture('portrait.png') };
  const result = await client.videos.generate(params, { output, pollInterval: 10 });
  expect((await readFile(output)).subarray(4, 8).toString('latin1')).toBe('ftyp');
  expect(result.path).toBe(output);
  // Every request the mock saw went through the fetch given, in the same order.
  const seen = server.requests.map((r) => `${r.method} ${r.path}`);
  expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual(seen);
  expect(calls[0]?.method).toBe('POST');
  const fileHost = calls.filter((c) => !c.url.startsWith(server.baseURL));
  expect(fileHost.length).toBeGreaterThan(0);
  expect(fileHost.every((c) => !c.key)).toBe(true);
  expect(calls.filter((c) => c.url.startsWith(server.baseURL)).every((c) => c.key)).toBe(true);
});

it('maps a refused connection through fetch to APIConnectionError with its origin, host and code', async () => {
  const server = await startMockServer();
  const baseURL = server.baseURL;
  await server.close();
  const { fetch } = countingFetch();
  const client = new AvatarVideo({ apiKey: 'sk-fetch', baseURL, fetch, maxRetries: 0, logLevel: 'off' });
  closers.push(() => client.close());
  const error = (await client.videos.retrieve('vid_1').catch((e: unknown) => e)) as APIConnectionError;
  expect(error).toBeInstanceOf(APIConnectionError);
  expect(error).toMatchObject({ origin: 'api', host: new URL(baseURL).host, code: 'connection' });
  expect(error.message).toContain('ECONNREFUSED');
});

it('refuses a dispatcher with fetch, and a dispatcher without dispatch (Bun’s undici), saying why', () => {
  const agent = new Agent();
  closers.push(() => agent.close());
  const base = { apiKey: 'sk-x', baseURL: 'http://127.0.0.1:1' };
  const both = () => new AvatarVideo({ ...base, dispatcher: agent, fetch: globalThis.fetch });
  expect(both).toThrow(InvalidArgumentError);
  expect(both).toThrow(/dispatcher is an option of undici, and a client given fetch sends with that fetch/);
  const partial = () => new AvatarVideo({ ...base, dispatcher: {} as Agent });
  expect(partial).toThrow(InvalidArgumentError);
  expect(partial).toThrow(/has no dispatcher \(Bun ships a partial copy of its own\)/);
  expect(() => new AvatarVideo({ ...base, fetch: 'fetch' as never })).toThrow(/fetch must be a function/);
});
