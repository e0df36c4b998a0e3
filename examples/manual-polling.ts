/**
 * Polling by hand with `retrieve`, and streaming the result with `content`: what `waitForCompletion`
 * and `download` do for you, written out, for when you need your own schedule (a cron job, a queue
 * worker that checks each job once per run).
 *
 *   npx tsx examples/manual-polling.ts
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  let video = await client.videos.create({
    audio_reference: new URL('speech.wav', media),
    image_reference: new URL('portrait.png', media),
  });
  // Most jobs finish in under two minutes. Back off gently; a transient error is retried by the SDK.
  for (let delay = 1_000; video.status === 'PROCESSING'; delay = Math.min(delay * 1.5, 10_000)) {
    await sleep(delay);
    video = await client.videos.retrieve(video.id);
    console.log(`${video.id} ${video.status} ${video.progress ?? 0}%`);
  }
  switch (video.status) {
    case 'COMPLETE': {
      // `content` follows the redirect to the file's host (without your key) and streams the MP4.
      const content = await client.videos.content(video.id);
      await pipeline(content.body, createWriteStream('manual-polling.mp4'));
      console.log(`saved manual-polling.mp4 (${content.contentLength} bytes)`);
      break;
    }
    case 'FAILED':
      throw new Error(`video ${video.id} failed: ${video.error?.code} ${video.error?.message}`);
    default:
      // CANCELLED, or a status newer than this code: do not treat it as success.
      throw new Error(`video ${video.id} ended ${video.status}`);
  }
} finally {
  await client.close();
  await mock?.close();
}
