/**
 * Poll overhead: 2,000 sequential `videos.retrieve` calls through the SDK vs raw undici `request` + JSON parse
 * (bench/poll-sdk.ts, bench/poll-undici.ts), each run in a fresh process compiled as the package is, on one
 * kept-alive connection to the same loopback server (a child process of its own). Contenders alternate who goes
 * first each round; the figures are medians. Target (issue 25): the SDK's call rate >= 1.0x raw undici's.
 *
 *   npx tsx bench/poll.ts [calls=2000] [rounds=7]
 */
import { availableParallelism, loadavg } from 'node:os';
import { wholeArgs } from './support/args.js';
import { compile } from './support/build.js';
import type { PollRun } from './support/report-poll.js';
import { run, spawnServers } from './support/spawn.js';

const [CALLS, ROUNDS] = wholeArgs(['calls', 2_000], ['rounds', 7]);
const TARGET = 1.0;
const CONTENDERS = ['sdk', 'undici'] as const;
type Contender = (typeof CONTENDERS)[number];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const built = await compile(['bench/poll-sdk.ts', 'bench/poll-undici.ts']);
const children = Object.fromEntries(CONTENDERS.map((who, i) => [who, built.paths[i] as string])) as Record<Contender, string>;
const servers = await spawnServers();
const poll = async (who: Contender) =>
  JSON.parse((await run(process.execPath, [children[who], servers.api, String(CALLS)])).stdout) as PollRun;

console.log(`load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores: other work on the machine skews wall times`);
try {
  // One untimed run each warms up the server's JIT, so the first counted run is not penalised for it.
  for (const who of CONTENDERS) await poll(who);
  const runs: Record<Contender, PollRun[]> = { sdk: [], undici: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? CONTENDERS : ([...CONTENDERS].reverse() as Contender[]);
    for (const who of order) runs[who].push(await poll(who));
    console.log(`round ${round + 1}: ${order.map((who) => `${who} ${(runs[who].at(-1)?.ms ?? 0).toFixed(0)} ms`).join(', ')}`);
  }
  const ms = (who: Contender) => median(runs[who].map((r) => r.ms));
  const cpuUs = (who: Contender) => median(runs[who].map((r) => (r.cpuMs * 1000) / CALLS));
  const line = (who: Contender) =>
    `| ${who} | ${ms(who).toFixed(0)} | ${((ms(who) / CALLS) * 1000).toFixed(0)} | ${Math.round(CALLS / (ms(who) / 1000))} | ${cpuUs(who).toFixed(0)} |`;
  console.log(`\n${CALLS} sequential retrieves on a kept-alive connection, medians of ${ROUNDS} fresh-process runs each:\n`);
  console.log('| contender | wall ms | µs/call | calls/s | CPU µs/call |\n|---|---|---|---|---|');
  console.log(`${line('sdk')}\n${line('undici')}`);
  const ratio = ms('undici') / ms('sdk');
  const cpuRatio = cpuUs('sdk') / cpuUs('undici');
  // Each round's pair ran back to back, so its ratio shares the machine's load of the moment: a check on the above.
  const paired = median(runs.sdk.map((r, i) => (runs.undici[i]?.ms ?? Number.NaN) / r.ms));
  console.log(`\nSDK/undici call rate: ${ratio.toFixed(2)}x (target >= ${TARGET}x; ${ratio >= TARGET ? 'met' : 'NOT met'})`);
  console.log(`  median of the per-round ratios: ${paired.toFixed(2)}x`);
  console.log(`SDK/undici CPU per call: ${cpuRatio.toFixed(2)}x (below 1.00x: the SDK spends less)`);
} finally {
  await servers.stop();
  await built.remove();
}
