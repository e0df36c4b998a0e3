/**
 * A long video: audio beyond one job's 60 s is cut at quiet moments into segments, the segments are
 * generated side by side, and their clips are joined into one MP4 without re-encoding.
 * `workDir` keeps a manifest of the jobs: run the same call again after a crash or Ctrl-C and it picks
 * up the jobs already created and the clips already downloaded, instead of paying for them again.
 *
 *   npx tsx examples/long-video.ts
 */
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  const result = await client.videos.generateLong(
    { audio_reference: new URL('talk.mp3', media), image_reference: new URL('portrait.png', media) }, // about 90 s of speech
    {
      output: 'long-video.mp4',
      concurrency: 3, // segments generated at once
      workDir: 'long-video.work', // the manifest and the finished segments, for a rerun
      onProgress: ({ phase, fraction, segments }) =>
        console.log(`${phase} ${Math.round(fraction * 100)}%  [${segments.map((segment) => segment.status).join(', ')}]`),
    },
  );
  console.log(`saved ${result.path}: ${result.durationSeconds.toFixed(1)} s, ${result.bytes} bytes`);
  console.log(`segments: ${result.segments.map((video) => video.id).join(', ')}`);
} finally {
  await client.close();
  await mock?.close();
}
