/**
 * An abort and a create in flight, over a real loopback socket: while the upload is still being sent the abort
 * stops it (the service cannot have made a job from half a body); once the whole body has left, the service may be
 * making a paid job that only the answer names, so the answer is awaited and the job is named, never lost.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIUserAbortError, AvatarVideo } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';
import { SENDERS } from '../helpers/senders.js';

describe.each(SENDERS)('over $name', ({ via }) => {
  const IMAGE = mockFixture('portrait.png');
  const closers = useCleanup();
  let dir: string;
  let audio: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'create-abort-'));
    audio = join(dir, 'speech.wav');
    // 23 MB: more than loopback's socket buffers hold, so an upload the server does not read stalls half-way.
    await writeFile(audio, wav(60, 192_000));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A client of `baseURL` that tries each request once, closed after the test. */
  function clientOf(baseURL: string): AvatarVideo {
    const client = new AvatarVideo({ ...via, apiKey: 'k', baseURL, logLevel: 'off', maxRetries: 0 });
    closers.push(() => client.close());
    return client;
  }

  /**
   * A service that reads the whole upload, then sees the caller abort while it makes job `id`, and answers after that.
   * Polls get the job still running.
   */
  async function answeringAfterAbort(id: string) {
    const controller = new AbortController();
    const api = await rawServer(async (req, res) => {
      for await (const _ of req) {
        /* the whole upload */
      }
      if (req.method === 'POST') {
        controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      json(res, 200, video(id));
    });
    closers.push(api.close);
    return { controller, api, client: clientOf(api.url) };
  }

  it('an abort during the upload stops it at once: the service never gets the whole body, and no job is named', async () => {
    const controller = new AbortController();
    let received = 0;
    let expected = 0;
    const api = await rawServer(async (req) => {
      expected = Number(req.headers['content-length']);
      req.pause(); // the service is slow to read: the upload stalls with most of the body unsent
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      req.resume();
      // Not events.once: it rejects on the 'error' the client's reset raises.
      await new Promise((resolve) => req.once('close', resolve));
    });
    const client = clientOf(api.url);
    closers.push(api.close);
    const error = await client.videos
      .generate({ audio_reference: audio, image_reference: IMAGE }, { output: join(dir, 'out.mp4'), signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).videoId).toBeUndefined();
    expect(api.requests.map((r) => r.method)).toEqual(['POST']);
    await expect.poll(() => received > 0).toBe(true);
    expect(received).toBeLessThan(expected);
  });

  it('an abort once the upload has left waits for the answer: onCreated hears of the job and the error names it', async () => {
    const { controller, api, client } = await answeringAfterAbort('vid_late');
    const stored: string[] = [];
    const error = await client.videos
      .generate(
        { audio_reference: audio, image_reference: IMAGE },
        { output: join(dir, 'out.mp4'), signal: controller.signal, onCreated: (v) => void stored.push(v.id) },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).videoId).toBe('vid_late');
    expect((error as Error).message).toContain('vid_late');
    expect(stored).toEqual(['vid_late']);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('videos.create returns the job when the abort comes after the upload has left', async () => {
    const { controller, client } = await answeringAfterAbort('vid_kept');
    const created = await client.videos.create({ audio_reference: audio, image_reference: IMAGE }, { signal: controller.signal });
    expect(created.id).toBe('vid_kept');
    expect(controller.signal.aborted).toBe(true);
  });
});
