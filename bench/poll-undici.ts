/**
 * Child of bench/poll.ts, compiled before it runs: what a user would write with undici alone to poll a video,
 * `request` and a JSON parse, on an Agent with the SDK's pool settings, so only the request path differs.
 * It does not load the SDK.
 *
 *   node poll-undici.js <api origin> <calls>
 */
import { Agent } from 'undici';
import { measurePolls } from './support/report-poll.js';
import { BENCH_KEY } from './support/servers.js';

const [api, calls] = process.argv.slice(2) as [string, string];
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const origin = new URL(api).origin;
await measurePolls(Number(calls), async () => {
  const response = await agent.request({
    origin,
    path: '/v1/videos/vid_1',
    method: 'GET',
    headers: { 'x-api-key': BENCH_KEY, accept: 'application/json' },
  });
  return response.body.json();
});
await agent.close();
