/**
 * Child of bench/batch.ts, compiled like the package: runs one batch (items from a generator) and prints wall
 * time, peak RSS and the summary's counts as JSON. Arguments: baseURL apiKey outDir items processingMs audio image.
 * With WARM_UP set (test/helpers/warm-up.ts), it makes one video elsewhere before the clock starts.
 */
import { AvatarVideo } from '../src/index.js';
import { warmUp } from '../test/helpers/warm-up.js';
import { peakRssBytes } from './support/peak-rss.js';

const [baseURL, apiKey, outputDir, items, processingMs, audio, image] = process.argv.slice(2) as string[];
const count = Number(items);
const jobMs = Number(processingMs);
const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off' });
// A generator: the batch reads items as a stream, never a prepared array.
function* source() {
  for (let i = 0; i < count; i++) yield { key: `item-${i}`, audio_reference: audio as string, image_reference: image as string };
}
await warmUp();
const baseRss = process.memoryUsage().rss;
const started = performance.now();
const summary = await client.videos.generateBatch(source(), {
  outputDir: outputDir as string,
  // Polls scaled to the jobs as the defaults (2 s to 10 s) are to jobs of a minute or two.
  pollInterval: Math.max(20, jobMs / 10),
  maxPollInterval: Math.max(40, jobMs / 5),
  maxAttempts: 6,
});
const wallMs = performance.now() - started;
await client.close();
const { completed, failed, skipped } = summary;
process.stdout.write(JSON.stringify({ wallMs, baseRss, peakRss: peakRssBytes(), completed, failed, skipped }));
