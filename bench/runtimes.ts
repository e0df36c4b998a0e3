/**
 * The SDK in Node, Bun and Deno, each against that runtime's own raw client (its `fetch`, and undici on Node): cold
 * start (process spawn to the first parsed answer) and 2,000 sequential polls of one video on a kept-alive
 * connection to a raw JSON server (bench/serve.ts, a process of its own), every run a fresh process of the compiled
 * child (bench/runtimes-child.ts); medians of `rounds`, contenders alternating order. Bun and Deno come from npm
 * (test/helpers/runtimes.ts). Target (issue 27): the SDK's polls within 1.1x of each runtime's raw client. On Bun,
 * where the SDK polls through fetch, a third contender, `duties`, is that fetch doing only what every SDK poll must (a
 * deadline, manual redirects, kept headers, a bounded read): how much of the target the duties leave to the SDK.
 *
 *   npx tsx bench/runtimes.ts [calls=2000] [rounds=5]
 */
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { runtimeBinary } from '../test/helpers/runtimes.js';
import { wholeArgs } from './support/args.js';
import { compile } from './support/build.js';
import type { PollRun } from './support/report-poll.js';
import { spawnServers } from './support/spawn.js';

const [CALLS, ROUNDS] = wholeArgs(['calls', 2_000], ['rounds', 5]);
const TARGET = 1.1;

type Contender = 'sdk' | 'fetch' | 'duties' | 'undici';
const LABELS: Record<Contender, string> = { sdk: 'SDK', fetch: 'raw fetch', duties: 'fetch + duties', undici: 'raw undici' };
interface Runtime {
  name: string;
  path: string;
  args: string[];
  contenders: Contender[];
}
interface Run extends PollRun {
  coldMs: number;
  rssMB: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The runtimes at hand: Node always, Bun and Deno when they can be had (else said, and left out). */
async function runtimes(): Promise<Runtime[]> {
  const found: Runtime[] = [
    { name: `node ${process.versions.node}`, path: process.execPath, args: [], contenders: ['sdk', 'fetch', 'undici'] },
  ];
  // The SDK polls through fetch on Bun only (undici has no dispatcher there): the duties contender belongs there.
  for (const [name, args, contenders] of [
    ['bun', [], ['sdk', 'fetch', 'duties']],
    ['deno', ['run', '-A', '--node-modules-dir=manual'], ['sdk', 'fetch']],
  ] as const) {
    const binary = await runtimeBinary(name);
    if ('missing' in binary) console.log(`${name} left out: ${binary.missing}`);
    else found.push({ name: `${name} ${binary.version}`, path: binary.path, args: [...args], contenders: [...contenders] });
  }
  return found;
}

/** One fresh process of `child` as `who` in `runtime`: its cold start, polls and memory. */
function once(runtime: Runtime, child: string, who: Contender, api: string): Promise<Run> {
  const started = performance.now();
  const process_ = spawn(runtime.path, [...runtime.args, child, who, api, String(CALLS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let [out, err, coldMs] = ['', '', 0];
  process_.stdout.on('data', (chunk: Buffer) => {
    if (coldMs === 0 && `${out}${chunk}`.includes('first\n')) coldMs = performance.now() - started;
    out += chunk;
  });
  process_.stderr.on('data', (chunk: Buffer) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    process_.on('error', reject);
    process_.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${runtime.name} ${who} exited with ${code}: ${err.trim()}`));
      const [poll, memory] = out
        .trim()
        .split('\n')
        .slice(-2)
        .map((line) => JSON.parse(line)) as [PollRun, { rssMB: number }];
      resolve({ ...poll, coldMs, rssMB: memory.rssMB });
    });
  });
}

const found = await runtimes();
const built = await compile(['bench/runtimes-child.ts', 'src/index.ts']);
const child = built.paths[0] as string;
const servers = await spawnServers();
console.log(`load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores: other work on the machine skews wall times`);
try {
  const runs = new Map<string, Run[]>();
  const key = (runtime: Runtime, who: Contender) => `${runtime.name}|${who}`;
  // One untimed run each warms the server's JIT and the runtimes' caches (Deno's compile cache).
  for (const runtime of found) for (const who of runtime.contenders) await once(runtime, child, who, servers.api);
  for (let round = 0; round < ROUNDS; round++) {
    for (const runtime of found) {
      const order = round % 2 === 0 ? runtime.contenders : [...runtime.contenders].reverse();
      for (const who of order)
        runs.set(key(runtime, who), [...(runs.get(key(runtime, who)) ?? []), await once(runtime, child, who, servers.api)]);
    }
    console.log(`round ${round + 1} of ${ROUNDS} done`);
  }
  const stat = (runtime: Runtime, who: Contender, pick: (run: Run) => number) => median((runs.get(key(runtime, who)) ?? []).map(pick));
  console.log(`\n${CALLS} sequential polls on a kept-alive connection after a cold start, medians of ${ROUNDS} fresh processes:\n`);
  console.log('| runtime | client | cold start ms | polls ms | µs/poll | CPU µs/poll | RSS MB |\n|---|---|---|---|---|---|---|');
  for (const runtime of found) {
    for (const who of runtime.contenders) {
      const ms = stat(runtime, who, (r) => r.ms);
      const cells = [stat(runtime, who, (r) => r.coldMs).toFixed(0), ms.toFixed(0), ((ms / CALLS) * 1000).toFixed(0)];
      cells.push(((stat(runtime, who, (r) => r.cpuMs) * 1000) / CALLS).toFixed(0), stat(runtime, who, (r) => r.rssMB).toFixed(0));
      console.log(`| ${runtime.name} | ${LABELS[who]} | ${cells.join(' | ')} |`);
    }
  }
  console.log('');
  const ratio = (runtime: Runtime, top: Contender, bottom: Contender, pick: (run: Run) => number) =>
    stat(runtime, top, pick) / stat(runtime, bottom, pick);
  for (const runtime of found) {
    for (const raw of runtime.contenders.filter((who) => who === 'fetch' || who === 'undici')) {
      const polls = ratio(runtime, 'sdk', raw, (r) => r.ms);
      const verdict = polls <= TARGET ? 'met' : 'NOT met';
      const [cpu, cold] = [ratio(runtime, 'sdk', raw, (r) => r.cpuMs), ratio(runtime, 'sdk', raw, (r) => r.coldMs)];
      console.log(
        `${runtime.name}: SDK/${LABELS[raw]} polls ${polls.toFixed(2)}x (target <= ${TARGET}x: ${verdict}), CPU ${cpu.toFixed(2)}x, cold start ${cold.toFixed(2)}x`,
      );
    }
    if (!runtime.contenders.includes('duties')) continue;
    const [floor, floorCPU] = [ratio(runtime, 'duties', 'fetch', (r) => r.ms), ratio(runtime, 'duties', 'fetch', (r) => r.cpuMs)];
    const [own, ownCPU] = [ratio(runtime, 'sdk', 'duties', (r) => r.ms), ratio(runtime, 'sdk', 'duties', (r) => r.cpuMs)];
    console.log(
      `${runtime.name}: fetch + duties/raw fetch polls ${floor.toFixed(2)}x (CPU ${floorCPU.toFixed(2)}x): the duties alone; SDK/fetch + duties ${own.toFixed(2)}x (CPU ${ownCPU.toFixed(2)}x): the SDK's own code`,
    );
  }
} finally {
  await servers.stop();
  await built.remove();
}
