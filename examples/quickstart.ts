/**
 * Quickstart: make a talking-portrait video and save it as an MP4, in one call. The README's Quickstart is this
 * file without the mock: an async main, no top-level await, so it runs as it is in a CommonJS project and an ES one.
 *
 *   npm run demo
 *
 * With AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL set, it talks to that service; otherwise it starts
 * the SDK's embedded mock server (`avatar-video/testing`), so it runs with no account.
 */
import { fileURLToPath } from 'node:url';
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = (name: string) => fileURLToPath(new URL(`./media/${name}`, import.meta.url));

async function main() {
  const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
  // With no options the client reads AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL.
  const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});
  try {
    // Checks the inputs locally, uploads them, waits for the job and saves the result.
    const { video, path, bytes } = await client.videos.generate(
      { audio_reference: media('speech.wav'), image_reference: media('portrait.png') },
      {
        output: 'out.mp4',
        // etaSeconds: the wait's estimate from how progress has moved (undefined until it has, 0 when done).
        onProgress: (job, { etaSeconds }) =>
          console.log(`${job.id} ${job.status} ${job.progress ?? 0}%${etaSeconds ? `, ~${Math.ceil(etaSeconds)} s left` : ''}`),
      },
    );
    console.log(`saved ${path} (${bytes} bytes, ${video.aspect_ratio}) from video ${video.id}`);
  } finally {
    await client.close(); // closes the client's connection pool
    await mock?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
