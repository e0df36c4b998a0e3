/**
 * Child of bench/runtimes.ts, compiled before it runs, in Node, Bun or Deno: one contender's first answer (printed as
 * `first` the moment it is parsed, for the parent's cold-start clock), then sequential polls (bench/poll.ts's measure),
 * then its resident memory. `sdk` is `videos.retrieve`; `fetch` the runtime's own fetch and a JSON parse; `undici`
 * undici's `request` (Node). Each loads only what it uses.
 *
 *   <runtime> runtimes-child.js <sdk|fetch|undici> <api origin> <calls>
 */
import process from 'node:process';
import { measurePolls } from './support/report-poll.js';
import { BENCH_KEY } from './support/servers.js';

const [who, api, calls] = process.argv.slice(-3) as ['sdk' | 'fetch' | 'undici', string, string];
const headers = { 'x-api-key': BENCH_KEY, accept: 'application/json' };
const url = `${api}/v1/videos/vid_1`;

/** The contender's call, and how to let its connections go. */
async function contender(): Promise<{ call: () => Promise<unknown>; close: () => Promise<void> }> {
  if (who === 'sdk') {
    // Compiled beside this file as a module of its own, so the raw contenders never parse it.
    const entry: string = './index.js';
    const { AvatarVideo } = (await import(entry)) as typeof import('../src/index.js');
    const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off' });
    return { call: () => client.videos.retrieve('vid_1'), close: () => client.close() };
  }
  if (who === 'undici') {
    const { Agent } = await import('undici');
    const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
    const origin = new URL(api).origin;
    const call = async () => (await agent.request({ origin, path: '/v1/videos/vid_1', method: 'GET', headers })).body.json();
    return { call, close: () => agent.close() };
  }
  return { call: async () => (await fetch(url, { headers })).json(), close: async () => {} };
}

const { call, close } = await contender();
await call();
process.stdout.write('first\n');
await measurePolls(Number(calls), call);
process.stdout.write(`${JSON.stringify({ rssMB: process.memoryUsage().rss / 2 ** 20 })}\n`);
await close();
