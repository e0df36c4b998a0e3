/**
 * Image to video, step by step: check the inputs locally, create the job, wait with progress, download.
 * `videos.generate` does all of this in one call (see quickstart.ts); the steps are useful when you
 * store the job id, show your own progress, or download later.
 *
 *   npx tsx examples/image-to-video.ts
 */
import AvatarVideo from 'avatar-video';
import { validateCreateParams } from 'avatar-video/media';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

const params = {
  audio_reference: new URL('speech.wav', media), // WAV or MP3, 1 to 60 s
  image_reference: new URL('portrait.png', media), // JPEG or PNG: front-facing, well lit, mouth open
};

try {
  // Optional: `create` runs the same checks itself. Reading them first lets you show what was found.
  const checked = await validateCreateParams(params);
  console.log(`audio: ${checked.audio.format} ${checked.audio.durationSeconds?.toFixed(1)} s`);
  console.log(`image: ${checked.visual.format} ${checked.visual.width}x${checked.visual.height}`);
  for (const warning of checked.warnings) console.warn(`advice: ${warning}`);

  const created = await client.videos.create(params);
  console.log(`created ${created.id}; store this id to come back to the job later`);

  const video = await client.videos.waitForCompletion(created.id, {
    onProgress: (job) => console.log(`  ${job.status} ${job.progress ?? 0}%`),
  });
  const saved = await client.videos.download(video, 'image-to-video.mp4', {
    onDownloadProgress: ({ bytes, total }) => total && bytes === total && console.log(`  downloaded ${bytes} bytes`),
  });
  console.log(`saved ${saved.path} (${video.aspect_ratio}, ${saved.contentType})`);
} finally {
  await client.close();
  await mock?.close();
}
