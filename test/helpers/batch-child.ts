/**
 * Child of test/videos/batch-crash.test.ts and test/videos/batch-long.test.ts: runs one batch against the parent's mock and prints
 * `<status> <key>` as each item finishes, so the parent can SIGKILL it part way. Arguments: baseURL apiKey outputDir
 * audio image count [longAudio [concurrency]]; with longAudio, a first item `long` has it as its audio.
 */
import { AvatarVideo, type BatchItem } from '../../src/index.js';

const [baseURL, apiKey, outputDir, audio, image, count, longAudio, concurrency] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string?,
  string?,
];
// A concurrency sets the one limit on jobs (the client's), and the batch's width of items in hand alike.
const width = concurrency ? Number(concurrency) : 'auto';
const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off', jobConcurrency: width });
const items: BatchItem[] = Array.from({ length: Number(count) }, (_, i) => ({
  key: `item-${i}`,
  audio_reference: audio,
  image_reference: image,
}));
if (longAudio) items.unshift({ key: 'long', audio_reference: longAudio, image_reference: image });
await client.videos.generateBatch(items, {
  outputDir,
  concurrency: width,
  pollInterval: 40,
  maxPollInterval: 80,
  onItem: (result) => process.stdout.write(`${result.status} ${result.key}\n`),
});
process.stdout.write('finished\n');
await client.close();
