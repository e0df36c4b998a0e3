/**
 * Testing your own code against `avatar-video/testing`: a stateful mock of the API on real loopback
 * sockets, so your code runs its real HTTP path (uploads, redirects, downloads) with no account.
 * It needs nothing beyond avatar-video (the mock bundles what it uses); run it with vitest.
 *
 *   npx vitest run --config examples/vitest.config.ts
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AvatarVideo from 'avatar-video';
import { type MockServer, startMockServer } from 'avatar-video/testing';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

// ---- Your application code (normally imported from your own module) ----

/**
 * Make a greeting video. When the service was too busy for the job (it ends FAILED for a rate limit), `generate`
 * makes it again by itself; any other failure reaches the caller as a VideoFailedError naming the job.
 */
async function makeGreeting(client: AvatarVideo, audio: URL, portrait: URL, output: string) {
  const { video, bytes } = await client.videos.generate({ audio_reference: audio, image_reference: portrait }, { output });
  return { id: video.id, bytes };
}

// ---- Its tests ----

const media = new URL('./media/', import.meta.url);
const audio = new URL('speech.wav', media);
const portrait = new URL('portrait.png', media);

let mock: MockServer;
let client: AvatarVideo;
let dir: string;

beforeEach(async () => {
  // A manual clock: jobs finish when the test says so, not after real seconds. The mock's poll hint keeps
  // the waits quick with the app's own settings.
  mock = await startMockServer({ clock: 'manual', processingMs: 60_000 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'greeting-'));
});

afterEach(async () => {
  await client.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

it('saves the video once the job completes', async () => {
  const output = join(dir, 'greeting.mp4');
  const made = makeGreeting(client, audio, portrait, output);
  await vi.waitFor(() => expect(mock.creates).toBe(1));
  mock.advance(60_000); // a minute of processing, instantly

  const { id, bytes } = await made;
  expect(mock.getVideo(id)?.status).toBe('COMPLETE');
  expect((await readFile(output)).length).toBe(bytes);
});

it('is made again when the service was too busy for the first job', async () => {
  mock.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'too many jobs' } });
  const made = makeGreeting(client, audio, portrait, join(dir, 'busy.mp4'));
  await vi.waitFor(() => expect(mock.creates).toBe(1));
  mock.advance(60_000); // the first job fails
  await vi.waitFor(() => expect(mock.creates).toBe(2));
  mock.advance(60_000); // the second completes

  const { id } = await made;
  expect(mock.getVideo(id)?.status).toBe('COMPLETE');
  expect(mock.creates).toBe(2);
});

it('gives up on other failures without paying for a second job', async () => {
  mock.enqueueOutcome({ status: 'FAILED', error: { code: 'no_face_found', message: 'no face in the image' } });
  const made = makeGreeting(client, audio, portrait, join(dir, 'failed.mp4'));
  await vi.waitFor(() => expect(mock.creates).toBe(1));
  mock.advance(60_000);

  await expect(made).rejects.toMatchObject({ name: 'VideoFailedError', code: 'no_face_found' });
  expect(mock.creates).toBe(1);
});

it('rides out a brief outage while waiting, and never sends the key to the file host', async () => {
  mock.failNext({ method: 'GET', path: /^\/v1\/videos\/[^/]+$/ }, { status: 503, times: 2 });
  const made = makeGreeting(client, audio, portrait, join(dir, 'outage.mp4'));
  await vi.waitFor(() => expect(mock.creates).toBe(1));
  mock.advance(60_000);

  await made;
  const fileHost = mock.requests.filter((request) => request.origin === 'cdn');
  expect(fileHost.length).toBeGreaterThan(0);
  expect(fileHost.every((request) => !request.hasApiKey)).toBe(true);
});
