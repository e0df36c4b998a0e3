/**
 * Child of bench/poll.ts, compiled before it runs: sequential `videos.retrieve` calls in a fresh process,
 * through the public API only.
 *
 *   node poll-sdk.js <api origin> <calls>
 */
import { AvatarVideo } from '../src/index.js';
import { measurePolls } from './support/report-poll.js';
import { BENCH_KEY } from './support/servers.js';

const [api, calls] = process.argv.slice(2) as [string, string];
const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off' });
await measurePolls(Number(calls), () => client.videos.retrieve('vid_1'));
await client.close();
