/**
 * Quickstart: make a talking-portrait video and save it as an MP4.
 *
 *   npm run demo
 *
 * With AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL set, it talks to that service; otherwise it starts
 * the SDK's embedded mock server (`avatar-video/testing`), so it runs with no account.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { AvatarVideo } from '../src/index.js';
import { startMockServer } from '../src/testing/index.js';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  let video = await client.videos.create({
    audio_reference: new URL('speech.wav', media),
    image_reference: new URL('portrait.png', media),
  });
  console.log(`created ${video.id} (${video.generation_mode}, ${video.aspect_ratio})`);
  while (video.status === 'PROCESSING') {
    await delay(500);
    video = await client.videos.retrieve(video.id);
    console.log(`  ${video.status} ${video.progress ?? 0}%`);
  }
  if (video.status !== 'COMPLETE') throw new Error(`video ${video.id} ended ${video.status}: ${video.error?.message}`);
  const content = await client.videos.content(video.id);
  await pipeline(content.body, createWriteStream('out.mp4'));
  console.log(`saved out.mp4 (${content.contentLength} bytes, ${content.contentType})`);
} finally {
  await client.close();
  await mock?.close();
}
