/**
 * How soon a webhook arrives after a video job settles, and what it costs, for the ways avatar-video/bullmq sends
 * one, against the loop a user writes by hand. One run, on the same kind of jobs (4 to 20 s on the embedded mock,
 * which sends no `x-poll-after` hint, as the spec names none), each strategy in turn:
 *   watches     `watchJob` for each video as it is made (as the proxy's `onCreated` would), on HOSTS processes each
 *               running `createWatchProcessor` and `createDeliveryProcessor` (default poll schedule)
 *   fixed 5 s   one process retrieving each video every 5 s until it settles, then POSTing the same signed event
 *   video jobs  `videoJob(item, { notifyUrl })` on HOSTS processes running `createVideoProcessor` with a
 *               `deliveryQueue` and `createDeliveryProcessor`: the job is made, waited for and saved, then its event
 * A node:http receiver here verifies every event with `verifyWebhook` (on `standardwebhooks`, the specification's reference
 * implementation) and records when it arrived. Delay = arrival minus the job's completion on the mock (its create time
 * on the mock's clock plus its processing time, not the 1-second `completed_at`); polls = the mock's answers to
 * `GET /v1/videos/<id>`; CPU = the worker processes' CPU time from ready to stop (redis-server's not counted); peak RSS
 * = the largest worker process's. Children are compiled like the package (bench/support/build.ts).
 *
 *   npx tsx bench/webhooks.ts [jobs=40] [hosts=2]
 *
 * No target: it prints figures, and ratios to the fixed 5 s poll.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { videoJob, watchJob } from '../src/bullmq/index.js';
import { startMockServer } from '../src/testing/index.js';
import { type VideoEvent, verifyWebhook } from '../src/webhooks/index.js';
import { wav } from '../test/helpers/media.js';
import { findRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../test/helpers/redis-server.js';
import { type Received, startWebhookReceiver } from '../test/helpers/webhook-receiver.js';
import { compile } from './support/build.js';

const JOBS = Number(process.argv[2] ?? 40);
const HOSTS = Number(process.argv[3] ?? 2);
const SHORTEST_MS = 4_000;
const LONGEST_MS = 20_000;
/** Jobs are made one after another, this far apart, as users' requests come in. */
const STAGGER_MS = 100;
/** How long after the last job's end a strategy may take to deliver everything before the bench gives up on it. */
const GRACE_MS = 120_000;
const FIELDS = { model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' } as const;
const IMAGE = fileURLToPath(new URL('../test/fixtures/mock/portrait.png', import.meta.url));

if (findRedisServer() === undefined) {
  console.log(`bench/webhooks.ts needs redis-server on PATH; ${REDIS_INSTALL_HINT}`);
  process.exit(1);
}

/** Job i's processing time: spread over 4 to 20 s by the golden ratio, so that any count of jobs covers the range. */
const durationOf = (i: number) => Math.round(SHORTEST_MS + (LONGEST_MS - SHORTEST_MS) * ((i * 0.618_033_988_75) % 1));
/** Processing time of each create, in the mock's order of creates. */
const durations: number[] = [];
const mock = await startMockServer({ processingMs: (index) => durations[index] ?? LONGEST_MS, pollAfterMs: null });

/** When each video ends on the mock, by id: its create time on the mock's clock plus its processing time. */
const endsAt = new Map<string, number>();
/** The widest gap between the clock readings around a create: how exactly the end times above are known. */
let endUncertaintyMs = 0;
const createOnMock = mock.state.createVideo.bind(mock.state);
mock.state.createVideo = (fields, audioSeconds) => {
  const index = mock.state.creates;
  const before = mock.state.now();
  const video = createOnMock(fields, audioSeconds);
  endUncertaintyMs = Math.max(endUncertaintyMs, mock.state.now() - before);
  endsAt.set(video.id, before + (durations[index] ?? LONGEST_MS));
  return video;
};

/** What the receiver saw of one video's events. */
interface Arrivals {
  first: number;
  count: number;
  ids: Set<string>;
}
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const arrivals = new Map<string, Arrivals>();
let unverified = 0;
const receiver = await startWebhookReceiver((request, response) => {
  const event = verified(request);
  if (event === undefined) {
    unverified += 1;
    response.writeHead(400).end('bad signature');
    return;
  }
  const seen = arrivals.get(event.data.id) ?? { first: Date.now(), count: 0, ids: new Set<string>() };
  seen.count += 1;
  seen.ids.add(event.id);
  arrivals.set(event.data.id, seen);
  response.writeHead(204).end();
});

/** The event of a request whose signature, timestamp and body verify, else undefined. */
function verified(request: Received): VideoEvent | undefined {
  try {
    return verifyWebhook(request.body, request.headers as Record<string, string>, secret);
  } catch {
    return undefined;
  }
}

const hostCount = (count: number) => `${count} host${count === 1 ? '' : 's'}`;

/** A child of bench/webhooks-child.ts. */
interface Host {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  exited: Promise<unknown>;
  stderr: string;
  usage?: { cpuMs: number; peakRssBytes: number };
}

async function startHost(script: string, args: string[]): Promise<Host> {
  const env = { ...process.env, BENCH_BASE_URL: mock.baseURL, BENCH_API_KEY: mock.apiKey, BENCH_SECRET: secret };
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  const host: Host = { child, exited: once(child, 'exit'), stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => {
    host.stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [word, cpuMs, rss] = line.split(' ');
      if (word === 'ready') resolve();
      if (word === 'usage') host.usage = { cpuMs: Number(cpuMs), peakRssBytes: Number(rss) };
    });
    void host.exited.then(() => reject(new Error(`a bench host exited before it was ready:\n${host.stderr}`)));
  });
  return host;
}

async function stopHosts(hosts: Host[]): Promise<void> {
  for (const { child } of hosts) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(hosts.map((host) => host.exited));
}

/** What one strategy gave. */
interface Outcome {
  name: string;
  delays: number[];
  polls: number[];
  /** Events the receiver got per video, retries included, and distinct event ids per video. */
  events: number[];
  eventIds: number[];
  missing: number;
  cpuMs: number;
  peakRssBytes: number;
}

/** Waits until every video of `ids` has an event, or the grace after the last end has passed; then reads the figures. */
async function collect(name: string, ids: () => string[], hosts: Host[]): Promise<Outcome> {
  const lastEnd = () => Math.max(...ids().map((id) => endsAt.get(id) ?? Date.now()));
  while (ids().length < JOBS || ids().some((id) => !arrivals.has(id))) {
    if (ids().length === JOBS && Date.now() > lastEnd() + GRACE_MS) break;
    if (hosts.some((host) => host.child.exitCode !== null)) throw new Error(`a host exited:\n${hosts.map((h) => h.stderr).join('\n')}`);
    await sleep(100);
  }
  // Same-id retries still under way land here too.
  await sleep(1_000);
  await stopHosts(hosts);
  const seen = ids().flatMap((id) => {
    const got = arrivals.get(id);
    return got ? [{ id, got }] : [];
  });
  return {
    name,
    delays: seen.map(({ id, got }) => got.first - (endsAt.get(id) as number)),
    polls: ids().map((id) => mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${id}`).length),
    events: seen.map(({ got }) => got.count),
    eventIds: seen.map(({ got }) => got.ids.size),
    missing: JOBS - seen.length,
    cpuMs: hosts.reduce((sum, host) => sum + (host.usage?.cpuMs ?? Number.NaN), 0),
    peakRssBytes: Math.max(...hosts.map((host) => host.usage?.peakRssBytes ?? Number.NaN)),
  };
}

/** Makes the jobs on the mock one by one, as a browser through the proxy would, and gives each id to `watch`. */
async function makeJobs(watch: (id: string) => Promise<void> | void): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    durations.push(durationOf(i));
    const video = mock.state.createVideo(FIELDS);
    ids.push(video.id);
    await watch(video.id);
    await sleep(STAGGER_MS);
  }
  return ids;
}

async function watches(script: string, socket: string): Promise<Outcome> {
  const connection = { path: socket };
  const queue = new Queue('watches', { connection });
  const hosts = await Promise.all(
    Array.from({ length: HOSTS }, () => startHost(script, ['watch', socket, 'watches', 'watch-deliveries', '-', '20'])),
  );
  const notifyUrl = `${receiver.origin}/hooks/watches`;
  try {
    const ids: string[] = [];
    const made = makeJobs(async (id) => {
      ids.push(id);
      const job = watchJob(id, { notifyUrl });
      await queue.add(job.name, job.data, job.opts);
    });
    const outcome = await collect(`watches (watchJob), ${hostCount(HOSTS)}`, () => ids, hosts);
    await made;
    return outcome;
  } finally {
    await stopHosts(hosts);
    await queue.close();
  }
}

async function fixedPoll(script: string): Promise<Outcome> {
  const host = await startHost(script, ['poll5']);
  const notifyUrl = `${receiver.origin}/hooks/fixed`;
  try {
    const ids: string[] = [];
    const made = makeJobs((id) => {
      ids.push(id);
      host.child.stdin.write(`${id} ${notifyUrl}\n`);
    });
    const outcome = await collect('fixed 5 s poll, by hand, 1 process', () => ids, [host]);
    await made;
    return outcome;
  } finally {
    await stopHosts([host]);
  }
}

async function videoJobs(script: string, socket: string, work: string): Promise<Outcome> {
  const connection = { path: socket };
  const queue = new Queue('videos', { connection });
  const audio = join(work, 'speech.wav');
  await writeFile(audio, wav(1));
  const perHost = String(Math.ceil(JOBS / HOSTS));
  const args = ['jobs', socket, 'videos', 'video-deliveries', work, perHost];
  const hosts = await Promise.all(Array.from({ length: HOSTS }, () => startHost(script, args)));
  const first = mock.state.creates;
  const ids = () =>
    mock.state
      .listVideos()
      .slice(0, mock.state.creates - first)
      .map((video) => video.id);
  try {
    for (let i = 0; i < JOBS; i++) durations.push(durationOf(i));
    const notifyUrl = `${receiver.origin}/hooks/videos`;
    for (let i = 0; i < JOBS; i++) {
      const job = videoJob({ key: `item-${i}`, audio_reference: audio, image_reference: IMAGE }, { notifyUrl });
      await queue.add(job.name, job.data, job.opts);
      await sleep(STAGGER_MS);
    }
    return await collect(`video jobs (videoJob notifyUrl), ${hostCount(HOSTS)}`, ids, hosts);
  } finally {
    await stopHosts(hosts);
    await queue.close();
  }
}

/** The nearest-rank percentile `p` (0 to 1) of `values`. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ms = (value: number) => `${Math.round(value)} ms`;

function row(o: Outcome): string[] {
  return [
    o.name,
    ms(percentile(o.delays, 0.5)),
    ms(percentile(o.delays, 0.99)),
    ms(Math.max(...o.delays)),
    mean(o.polls).toFixed(1),
    `${Math.max(...o.polls)}`,
    `${mean(o.events).toFixed(2)} (${Math.max(...o.eventIds)} id)`,
    `${o.missing}`,
    `${Math.round(o.cpuMs)} (${(o.cpuMs / JOBS).toFixed(0)}/job)`,
    `${(o.peakRssBytes / 1024 / 1024).toFixed(0)} MB`,
  ];
}

function report(outcomes: Outcome[], wallMs: number): void {
  const head = ['strategy', 'delay p50', 'p99', 'max', 'polls/job', 'max', 'events/job', 'lost', 'CPU ms', 'peak RSS'];
  const rows = [head, ...outcomes.map(row)];
  const widths = head.map((_, column) => Math.max(...rows.map((cells) => (cells[column] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  console.log(
    `${JOBS} jobs of ${SHORTEST_MS / 1000} to ${LONGEST_MS / 1000} s, made ${STAGGER_MS} ms apart, no poll hint; ` +
      `${(wallMs / 1000).toFixed(0)} s; load average ${loadavg()[0]?.toFixed(1)} at the end on ${availableParallelism()} cores; ` +
      `job ends known to ${endUncertaintyMs} ms; ${unverified} requests failed verification\n`,
  );
  console.log([line(head), line(head.map((_, column) => '-'.repeat(widths[column] as number))), ...rows.slice(1).map(line)].join('\n'));
  console.log(
    "\ndelay: arrival of the first verified event minus the job's end on the mock; polls: GET /v1/videos/<id> answered; " +
      'events/job: verified events per video (most distinct webhook-ids of one video); lost: videos without one; ' +
      "CPU: the strategy's processes, ready to stop, together; peak RSS: the largest of them",
  );
  const fixed = outcomes.find((o) => o.name.startsWith('fixed'));
  if (fixed === undefined) return;
  console.log('');
  for (const o of outcomes.filter((each) => each !== fixed)) {
    const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(2)}x`;
    console.log(
      `${o.name} against the fixed 5 s poll: delay p50 ${ratio(percentile(o.delays, 0.5), percentile(fixed.delays, 0.5))}, ` +
        `p99 ${ratio(percentile(o.delays, 0.99), percentile(fixed.delays, 0.99))}; polls/job ${ratio(mean(o.polls), mean(fixed.polls))}; ` +
        `CPU ${ratio(o.cpuMs, fixed.cpuMs)}`,
    );
  }
}

// compile() writes under the repository's git-ignored .tmp/, which a fresh worktree lacks.
await mkdir(fileURLToPath(new URL('../.tmp', import.meta.url)), { recursive: true });
const built = await compile(['bench/webhooks-child.ts']);
const [script] = built.paths as [string];
const work = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
const redis = await startRedisServer(work);
try {
  const started = Date.now();
  const outcomes = [await watches(script, redis.path), await fixedPoll(script), await videoJobs(script, redis.path, work)];
  report(outcomes, Date.now() - started);
} finally {
  await redis.close();
  await receiver.close();
  await mock.close();
  await built.remove();
  await rm(work, { recursive: true, force: true });
}
