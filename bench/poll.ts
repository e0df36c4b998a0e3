/**
 * 2,000 sequential `retrieve` calls through the SDK vs raw undici `request` + JSON parse, on the same
 * keep-alive server (a child process), interleaved over several rounds. Target: SDK >= 0.85x raw.
 *
 *   npx tsx bench/poll.ts [calls=2000] [rounds=5]
 */
import { pathToFileURL } from 'node:url';
import { Agent } from 'undici';
import type * as SDK from '../src/index.js';
import { compile } from './support/build.js';
import { BENCH_KEY } from './support/servers.js';
import { spawnServers } from './support/spawn.js';

const CALLS = Number(process.argv[2] ?? 2_000);
const ROUNDS = Number(process.argv[3] ?? 5);

// The SDK as built for users, not as tsx transforms it on the fly.
const built = await compile(['src/index.ts']);
const { AvatarVideo } = (await import(pathToFileURL(built.paths[0] as string).href)) as typeof SDK;
const servers = await spawnServers();
const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: servers.api, logLevel: 'off' });
// The same pool settings as the SDK's own Agent, so only the request path differs.
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const origin = new URL(servers.api).origin;

const contenders: Record<string, () => Promise<unknown>> = {
  sdk: () => client.videos.retrieve('vid_1'),
  undici: async () => {
    const response = await agent.request({
      origin,
      path: '/v1/videos/vid_1',
      method: 'GET',
      headers: { 'x-api-key': BENCH_KEY, accept: 'application/json' },
    });
    return response.body.json();
  },
};

async function time(call: () => Promise<unknown>, calls: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

try {
  for (const call of Object.values(contenders)) await time(call, 5_000); // warm up the JIT (here and in the server)
  const results: Record<string, number[]> = { sdk: [], undici: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate who goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? ['sdk', 'undici'] : ['undici', 'sdk'];
    for (const name of order) results[name]?.push(await time(contenders[name] as () => Promise<unknown>, CALLS));
    const line = order.map((name) => `${name} ${(results[name]?.at(-1) ?? 0).toFixed(0)} ms`).join(', ');
    console.log(`round ${round + 1}: ${line}`);
  }
  const sdk = median(results.sdk ?? []);
  const raw = median(results.undici ?? []);
  const per = (ms: number) => `${((ms / CALLS) * 1000).toFixed(0)} µs/call, ${Math.round(CALLS / (ms / 1000))} calls/s`;
  console.log(`\n${CALLS} sequential retrieves, median of ${ROUNDS} rounds:`);
  console.log(`  sdk     ${sdk.toFixed(0)} ms  (${per(sdk)})`);
  console.log(`  undici  ${raw.toFixed(0)} ms  (${per(raw)})`);
  console.log(`  ratio   sdk speed / raw undici = ${(raw / sdk).toFixed(2)}x  (target >= 0.85)`);
} finally {
  await client.close();
  await agent.close();
  await servers.stop();
  await built.remove();
}
