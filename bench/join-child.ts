/** Child of bench/join.ts: joins the given MP4s and prints time and peak RSS as JSON. Compiled like the package. */
import { joinVideos } from '../src/lib/long/join-videos.js';
import { peakRssBytes } from './support/peak-rss.js';

const [output, ...inputs] = process.argv.slice(2);
const baseRss = process.memoryUsage().rss; // node and the SDK loaded, before any media is read
const started = performance.now();
const result = await joinVideos(inputs, output as string);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, maxRssKb: peakRssBytes() / 1024, baseRss, ...result }));
