/**
 * Child of bench/upload.ts, compiled before it runs: one `videos.create` with a video reference, in a fresh
 * process, validation included (as users run it).
 *
 *   node upload-sdk.js <api origin> <audio path> <video path>
 */
import { AvatarVideo } from '../src/index.js';
import { BENCH_KEY } from './support/servers.js';
import { measureUpload } from './upload-measure.js';

const [api, audio, videoPath] = process.argv.slice(2) as [string, string, string];
await measureUpload(async () => {
  const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off', maxRetries: 0 });
  try {
    return await client.videos.create({ audio_reference: audio, video_reference: videoPath });
  } finally {
    await client.close();
  }
});
