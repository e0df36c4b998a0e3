/**
 * How soon a wait notices a finished job, and at how many polls. Jobs on a simulated API (loopback,
 * bench/support/job-server.ts) finish 6 to 24 s after they start: a fifth of the spec's "most under two
 * minutes", with the SDK's defaults scaled by the same fifth (pollInterval 400 ms, maxPollInterval 2 s).
 * Three pollers wait on the same job durations, 16 jobs each at once, all in the same run:
 *   sdk      `videos.waitForCompletion`, progress-aware
 *   backoff  the SDK's schedule before it read progress: 400 ms growing 1.5x to 2 s, up to 25% shorter
 *   fixed    a poll every 200 ms (1 s at full scale)
 * once with progress linear in time and once with progress null. Delay = arrival of the first poll
 * that found the job COMPLETE minus the moment it finished, measured by the server.
 * Targets (scaled): with progress, sdk mean delay <= 200 ms at <= 12 polls a job; without, no worse
 * than backoff (mean <= 1 s, <= 13 polls).
 *
 *   npx tsx bench/poll-latency.ts [rounds=2]
 */
import { pathToFileURL } from 'node:url';
import type * as SDK from '../src/index.js';
import { compile } from './support/build.js';
import { measure, type SimulatedJob, startJobServer } from './support/job-server.js';

const ROUNDS = Number(process.argv[2] ?? 2);
const JOBS = 16;
const SCALE = 1 / 5;
const POLL_INTERVAL = 2_000 * SCALE;
const MAX_POLL_INTERVAL = 10_000 * SCALE;
const FIXED_INTERVAL = 1_000 * SCALE;

// The SDK as built for users, not as tsx transforms it on the fly.
const built = await compile(['src/index.ts']);
const { AvatarVideo } = (await import(pathToFileURL(built.paths[0] as string).href)) as typeof SDK;
const server = await startJobServer();
const client = new AvatarVideo({ apiKey: 'sk-bench-key', baseURL: server.url, logLevel: 'off', maxRetries: 0 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A plain poller: retrieve at once, then after `delay(k)` ms following the k-th poll, until COMPLETE. */
async function pollLoop(id: string, delay: (k: number) => number): Promise<void> {
  for (let k = 0; ; k++) {
    if ((await client.videos.retrieve(id)).status === 'COMPLETE') return;
    await sleep(delay(k));
  }
}

const pollers: Record<string, (id: string) => Promise<unknown>> = {
  sdk: (id) => client.videos.waitForCompletion(id, { pollInterval: POLL_INTERVAL, maxPollInterval: MAX_POLL_INTERVAL }),
  backoff: (id) => pollLoop(id, (k) => Math.min(POLL_INTERVAL * 1.5 ** k, MAX_POLL_INTERVAL) * (1 - 0.25 * Math.random())),
  fixed: (id) => pollLoop(id, () => FIXED_INTERVAL),
};
const KINDS: Array<SimulatedJob['progress']> = ['linear', 'null'];

/** One round: every poller and progress kind at once, each on its own 16 jobs of the round's durations. */
async function round(index: number, results: Map<string, SimulatedJob[]>): Promise<void> {
  const durations = Array.from({ length: JOBS }, () => Math.round(6_000 + Math.random() * 18_000));
  const waits: Array<Promise<unknown>> = [];
  for (const kind of KINDS) {
    for (const [name, wait] of Object.entries(pollers)) {
      const key = `${name}/${kind}`;
      const jobs = results.get(key) ?? [];
      results.set(key, jobs);
      durations.forEach((duration, i) => {
        const job = server.add(`vid_${index}_${name}_${kind}_${i}`, duration, kind);
        jobs.push(job);
        waits.push(wait(job.id));
      });
    }
  }
  await Promise.all(waits);
}

function summarise(jobs: SimulatedJob[]) {
  const measured = jobs.map(measure);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    mean: mean(measured.map((m) => m.delay)),
    worst: Math.max(...measured.map((m) => m.delay)),
    polls: mean(measured.map((m) => m.polls)),
  };
}

try {
  const results = new Map<string, SimulatedJob[]>();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) await round(i, results);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`${ROUNDS} rounds of ${JOBS} jobs (6-24 s) per poller and progress kind, all at once; ${seconds} s\n`);
  console.log('poller   progress  mean delay  worst delay  polls/job   (mean delay at full scale)');
  const stats = new Map<string, ReturnType<typeof summarise>>();
  for (const kind of KINDS) {
    for (const name of Object.keys(pollers)) {
      const s = summarise(results.get(`${name}/${kind}`) ?? []);
      stats.set(`${name}/${kind}`, s);
      const row = [name.padEnd(8), kind.padEnd(8), `${s.mean.toFixed(0)} ms`.padStart(10), `${s.worst.toFixed(0)} ms`.padStart(12)];
      console.log(`${row.join(' ')}  ${s.polls.toFixed(1).padStart(9)}   (${(s.mean / SCALE / 1000).toFixed(2)} s)`);
    }
  }
  const get = (key: string) => stats.get(key) as ReturnType<typeof summarise>;
  const [sdk, backoff, fixed, sdkNull, backoffNull] = ['sdk/linear', 'backoff/linear', 'fixed/linear', 'sdk/null', 'backoff/null'].map(
    get,
  ) as [
    ReturnType<typeof summarise>,
    ReturnType<typeof summarise>,
    ReturnType<typeof summarise>,
    ReturnType<typeof summarise>,
    ReturnType<typeof summarise>,
  ];
  console.log('\nratios, progress linear:');
  console.log(
    `  mean delay  sdk / backoff = ${(sdk.mean / backoff.mean).toFixed(2)}x, sdk / fixed = ${(sdk.mean / fixed.mean).toFixed(2)}x`,
  );
  console.log(
    `  polls/job   sdk / backoff = ${(sdk.polls / backoff.polls).toFixed(2)}x, sdk / fixed = ${(sdk.polls / fixed.polls).toFixed(2)}x`,
  );
  console.log('ratios, progress null:');
  console.log(
    `  mean delay  sdk / backoff = ${(sdkNull.mean / backoffNull.mean).toFixed(2)}x; polls/job sdk / backoff = ${(sdkNull.polls / backoffNull.polls).toFixed(2)}x`,
  );
  const withProgress = sdk.mean <= 200 && sdk.polls <= 12;
  const without = sdkNull.mean <= 1_000 && sdkNull.polls <= 13;
  console.log(`\ntarget with progress (mean <= 200 ms, <= 12 polls): ${withProgress ? 'met' : 'MISSED'}`);
  console.log(`target without progress (mean <= 1000 ms, <= 13 polls): ${without ? 'met' : 'MISSED'}`);
} finally {
  await client.close();
  await server.close();
  await built.remove();
}
