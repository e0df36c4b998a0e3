/**
 * Child of bench/download.ts, compiled before it runs: one `videos.download` in a fresh process.
 *
 *   node download-sdk.js <api origin> <video id> <output path>
 */
import { createRequire } from 'node:module';
import { AvatarVideo } from '../src/index.js';
import { measureDownload } from './support/report-child.js';
import { BENCH_KEY, benchVideo } from './support/servers.js';

const [api, id, output] = process.argv.slice(2) as [string, string, string];
// undici loaded before the clock, as the undici contender's import loads it: the SDK's lazy load is bench/import.ts's.
createRequire(import.meta.url)('undici');
await measureDownload(output, async () => {
  const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off' });
  // A COMPLETE video in hand, as after a wait: the SDK sends the same requests as the undici contender.
  await client.videos.download(benchVideo(id), output);
  await client.close();
});
