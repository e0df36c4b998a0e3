import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { PROVENANCE_KEY, provenanceValue } from '../../src/testing/render-output.js';
import { useCleanup } from '../helpers/fixture.js';
import { wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';

const PNG_PORTRAIT = new Uint8Array(readFileSync(new URL('../fixtures/mock/portrait.png', import.meta.url))); // 90x160
const JPEG_LANDSCAPE = new Uint8Array(readFileSync(new URL('../fixtures/mock/landscape.jpg', import.meta.url)));
const MP3_2S = new Uint8Array(readFileSync(new URL('../fixtures/mock/tone-2s.mp3', import.meta.url)));

const closers = useCleanup();
let server: MockServer | undefined;

/** Create a job with this audio, let it complete, and download its file the way a client would. */
async function finishedVideo(audio: Uint8Array, image = JPEG_LANDSCAPE) {
  if (!server) {
    const started = await startMockServer({ clock: 'manual' });
    server = started;
    closers.push(() => {
      server = undefined;
      return started.close();
    });
  }
  const s = server;
  const body = new FormData();
  body.append('audio_reference', new Blob([audio as Uint8Array<ArrayBuffer>]), 'audio');
  body.append('image_reference', new Blob([image as Uint8Array<ArrayBuffer>]), 'image');
  const created = await fetch(`${s.baseURL}/v1/videos`, { method: 'POST', body, headers: { 'x-api-key': s.apiKey } });
  expect(created.status).toBe(200);
  const { id } = (await created.json()) as { id: string };
  s.advance(1_500); // the default processingMs
  const download = async () => {
    const content = await fetch(`${s.baseURL}/v1/videos/${id}/content`, { headers: { 'x-api-key': s.apiKey }, redirect: 'manual' });
    const file = await fetch(content.headers.get('location') ?? '');
    return { bytes: new Uint8Array(await file.arrayBuffer()), etag: file.headers.get('etag') };
  };
  return { id, download };
}

describe('mock outputs', () => {
  it.each([1, 2.5, 37.25, 60])('last as long as the uploaded audio (%s s) and carry a provenance marker', async (seconds) => {
    const { id, download } = await finishedVideo(wav(seconds));
    const video = await summarizeMp4((await download()).bytes);
    expect(video.durationSeconds).toBeCloseTo(seconds, 4);
    expect(video.videoSeconds).toBeCloseTo(seconds, 4);
    expect(video.audioSeconds).toBeCloseTo(seconds, 4);
    expect([video.width, video.height]).toEqual([1280, 720]);
    expect(video.tags[PROVENANCE_KEY]).toBe(provenanceValue(id));
    expect(server?.state.audioSeconds(id)).toBe(seconds);
  });

  it('follow MP3 audio and portrait references too', async () => {
    const { id, download } = await finishedVideo(MP3_2S, PNG_PORTRAIT);
    const video = await summarizeMp4((await download()).bytes);
    expect(video.durationSeconds).toBeCloseTo(server?.state.audioSeconds(id) ?? 0, 4);
    expect(video.durationSeconds).toBeGreaterThan(1.9);
    expect([video.width, video.height]).toEqual([720, 1280]);
  });

  it('repeat the fixture whole: a keyframe every second, 25 frames a second', async () => {
    const { download } = await finishedVideo(wav(3));
    const video = await summarizeMp4((await download()).bytes);
    expect(video.videoPackets).toBe(75);
    expect(video.videoTimestamps.filter((_, i) => i % 25 === 0)).toEqual([0, 1, 2]);
  });

  it('are rendered once per job and served identically after', async () => {
    const { download } = await finishedVideo(wav(20));
    const first = await download();
    const second = await download();
    expect(second.etag).toBe(first.etag);
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
  });
});
