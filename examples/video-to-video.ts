/**
 * Video to video: drive a short video of the person (10 to 60 s, MP4 or MOV) instead of a still image.
 * Video references are a gated preview: a key without access gets a PermissionDeniedError (403).
 *
 *   npx tsx examples/video-to-video.ts
 */
import AvatarVideo, { PermissionDeniedError } from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  const { video, path } = await client.videos.generate(
    { audio_reference: new URL('speech.wav', media), video_reference: new URL('presenter.mp4', media) },
    { output: 'video-to-video.mp4' },
  );
  console.log(`saved ${path}: ${video.generation_mode}, ${video.aspect_ratio} (the shape follows the reference video)`);
} catch (error) {
  if (!(error instanceof PermissionDeniedError)) throw error;
  console.error(`this key has no access to the video-reference preview: ${error.message}`);
  process.exitCode = 1;
} finally {
  await client.close();
  await mock?.close();
}
