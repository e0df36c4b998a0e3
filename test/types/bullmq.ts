/**
 * The type contract of `avatar-video/bullmq` with BullMQ's own types, as test/types/public-api.ts is for the main
 * entry (compiled by test/e2e/types.test.ts against the build, and by `npm run typecheck` against the sources).
 * Nothing here runs.
 */
import type { AvatarVideo } from 'avatar-video';
import { createVideoProcessor, type VideoJobData, type VideoJobResult, videoJob, workerDefaults } from 'avatar-video/bullmq';
import { type Job, Queue, Worker } from 'bullmq';

declare const client: AvatarVideo;
const connection = { path: '/tmp/redis.sock' };
const queue = new Queue<VideoJobData, VideoJobResult>('videos', { connection });

// The processor is a BullMQ processor; workerDefaults are Worker options; videoJob's result is what add/addBulk take.
export const worker = new Worker<VideoJobData, VideoJobResult>('videos', createVideoProcessor(client, { outputDir: 'out', queue }), {
  ...workerDefaults,
  connection,
});
export const single = videoJob({ key: 'alice', audio_reference: '/in/alice.wav', image_reference: '/in/portrait.png' });
export const added: Promise<Job<VideoJobData, VideoJobResult>> = queue.add(single.name, single.data, single.opts);
export const bulk = queue.addBulk([single, videoJob({ key: 'bob', audio_reference: '/in/bob.wav', video_reference: '/in/me.mp4' })]);
// Any Queue will do: the processor uses only its rateLimit.
export const untyped = createVideoProcessor(client, {
  outputDir: 'out',
  queue: new Queue('other', { connection }),
  waitTimeout: 60_000,
  maxJobAttempts: 2,
});

// @ts-expect-error inputs are stored as JSON: a path or a file: URL, as a string, not bytes
videoJob({ key: 'k', audio_reference: new Uint8Array(8), image_reference: '/in/portrait.png' });
// @ts-expect-error the processor needs the queue (to pause it after a 429)
createVideoProcessor(client, { outputDir: 'out' });
