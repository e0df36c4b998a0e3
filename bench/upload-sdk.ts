/**
 * Child of bench/upload.ts, compiled before it runs: one `videos.create` with a video reference, in a fresh
 * process, validation included (as users run it). The packages the SDK loads at first use are loaded before the
 * clock starts, as the raw contender's imports are: the figure is the upload's, not a module load's.
 *
 *   node upload-sdk.js <api origin> <audio path> <video path>
 */
import { createRequire } from 'node:module';
import { AvatarVideo } from '../src/index.js';
import { BENCH_KEY } from './support/servers.js';
import { measureUpload } from './upload-measure.js';

// The names src/ loads through lazyRequire, resolved from here as from the bundle: the same module instances.
const warm = createRequire(import.meta.url);
for (const name of ['undici', 'zod', 'form-data-encoder', 'mediabunny']) warm(name);

const [api, audio, videoPath] = process.argv.slice(2) as [string, string, string];
await measureUpload(async () => {
  const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off', maxRetries: 0 });
  try {
    return await client.videos.create({ audio_reference: audio, video_reference: videoPath });
  } finally {
    await client.close();
  }
});
