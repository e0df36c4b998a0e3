/**
 * Child of bench/download.ts, compiled before it runs: what a user would write with undici alone,
 * following the one redirect by hand and piping the body into a file. It does not load the SDK.
 *
 *   node download-undici.js <api origin> <video id> <output path>
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { measureDownload } from './support/report-child.js';
import { BENCH_KEY } from './support/servers.js';

const [api, id, output] = process.argv.slice(2) as [string, string, string];
await measureDownload(output, async () => {
  const redirect = await request(`${api}/v1/videos/${id}/content`, { headers: { 'x-api-key': BENCH_KEY } });
  await redirect.body.dump();
  const file = await request(String(redirect.headers.location));
  await pipeline(file.body, createWriteStream(output));
});
