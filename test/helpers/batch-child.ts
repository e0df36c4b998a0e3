/**
 * Child of test/batch-crash.test.ts: runs one batch against the parent's mock and prints `saved <key>` as each
 * item finishes, so the parent can SIGKILL it part way. Arguments: baseURL apiKey outputDir audio image count.
 */
import { AvatarVideo } from '../../src/index.js';

const [baseURL, apiKey, outputDir, audio, image, count] = process.argv.slice(2) as [string, string, string, string, string, string];
const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off' });
const items = Array.from({ length: Number(count) }, (_, i) => ({ key: `item-${i}`, audio_reference: audio, image_reference: image }));
await client.videos.generateBatch(items, {
  outputDir,
  pollInterval: 40,
  maxPollInterval: 80,
  onItem: (result) => process.stdout.write(`${result.status} ${result.key}\n`),
});
process.stdout.write('finished\n');
await client.close();
