/**
 * Quickstart: make a talking-portrait video and save it as an MP4, in one call.
 *
 *   npm run demo
 *
 * With AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL set, it talks to that service; otherwise it starts
 * the SDK's embedded mock server (`avatar-video/testing`), so it runs with no account.
 */
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  // Checks the inputs locally, uploads them, waits for the job and saves the result.
  const { video, path, bytes } = await client.videos.generate(
    { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) },
    {
      output: 'out.mp4',
      // etaSeconds: the wait's estimate from how progress has moved (undefined until it has, 0 when done).
      onProgress: (job, { etaSeconds }) =>
        console.log(`${job.id} ${job.status} ${job.progress ?? 0}%${etaSeconds ? `, ~${Math.ceil(etaSeconds)} s left` : ''}`),
    },
  );
  console.log(`saved ${path} (${bytes} bytes, ${video.aspect_ratio}) from video ${video.id}`);
} finally {
  await client.close();
  await mock?.close();
}
