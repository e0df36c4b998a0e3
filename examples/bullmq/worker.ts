/**
 * Worker: makes the videos on the `videos` queue and saves each as `<out>/<key>.mp4`. Run it on as many hosts as you
 * like, all with the same API key; Ctrl-C stops it once its current jobs end (a second Ctrl-C leaves them to other
 * workers, which take them up without paying twice).
 *
 *   npx tsx examples/bullmq/worker.ts [out]
 *
 * The service is AVATAR_VIDEO_BASE_URL and AVATAR_VIDEO_API_KEY: with `npx avatar-video mock` running in another
 * shell, run the two `export` lines it prints first.
 */
import { mkdir } from 'node:fs/promises';
import AvatarVideo from 'avatar-video';
import { createVideoProcessor, type VideoJobData, type VideoJobResult, workerDefaults } from 'avatar-video/bullmq';
import { Queue, Worker } from 'bullmq';
import { connection, QUEUE } from './connection.js';

const outputDir = process.argv[2] ?? 'out';
await mkdir(outputDir, { recursive: true });
const client = new AvatarVideo();
// The processor pauses this queue after a 429, for every worker.
const queue = new Queue<VideoJobData, VideoJobResult>(QUEUE, { connection });
const worker = new Worker<VideoJobData, VideoJobResult>(QUEUE, createVideoProcessor(client, { outputDir, queue }), {
  ...workerDefaults,
  connection,
});

worker.on('progress', (job, progress) => console.log(`${job.data.key}: ${String(progress)}%`));
worker.on('completed', (job, result) => console.log(`${job.data.key}: ${result.status} ${result.path} (video ${result.videoId})`));
worker.on('failed', (job, error) => console.log(`${job?.data.key}: failed (attempt ${job?.attemptsMade}): ${error.message}`));
console.log(`worker on '${QUEUE}', saving to ${outputDir}; Ctrl-C to stop`);

let stopping = false;
process.on('SIGINT', () => {
  if (stopping) process.exit(130);
  stopping = true;
  console.log('stopping once the current jobs end (Ctrl-C again to leave them to other workers)');
  void Promise.all([worker.close(), queue.close()]).then(() => client.close());
});
