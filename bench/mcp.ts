/**
 * The MCP server's waits, measured: `avatar-video mcp` as built (dist/cli.js, over stdio, spoken to by the MCP SDK's
 * client) against the embedded mock, beside a baseline run in the same process on the same job durations:
 *   mcp     an agent's loop of `wait_for_video` calls (with a progressToken) until the result says COMPLETE: each
 *           call is a bounded, progress-aware wait (the SDK's waitForCompletion) inside the server
 *   fixed5  Runway's MCP server's strategy, simulated here: retrieve the job every 5 s until it is COMPLETE
 * Delay = when the tool result (or the poll) reported COMPLETE minus when the job finished on the mock; polls = the
 * retrieves of that job the mock answered. Then the server's memory (VmRSS) idle and with 50 calls waiting at once.
 * Jobs run at full scale (5 to 90 s), so a run takes about two minutes.
 *
 *   npx tsx bench/mcp.ts [jobs per duration=3]   # runs `npm run build` first (rewrites dist/)
 */
import { readFileSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AvatarVideo } from '../src/index.js';
import { type MockServer, startMockServer } from '../src/testing/index.js';
import { repoTemp } from './support/repo-temp.js';
import { run } from './support/spawn.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PER_DURATION = Number(process.argv[2] ?? 3);
const DURATIONS_S = [5, 15, 30, 60, 90];
const FIXED_POLL_MS = 5_000;
const WAITING_CALLS = 50;

type Finished = { delay: number; polls: number; calls: number };

/** Job i's processing time on the mock; jobs are created in the order their durations are pushed here. */
const durations: number[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await run('npm', ['run', 'build'], ROOT);
const work = await repoTemp('bench-mcp-');
for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(ROOT, 'examples/media', name), join(work, name));
// No `x-poll-after` hint (the spec names none): the waits follow their own schedules, as against the service.
const mock = await startMockServer({ processingMs: (index) => durations[index] ?? 600_000, pollAfterMs: null });
const sdk = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(ROOT, 'dist/cli.js'), 'mcp'],
  cwd: work,
  env: { ...(process.env as Record<string, string>), AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL },
  stderr: 'ignore',
});
const client = new Client({ name: 'avatar-video-bench', version: '0' });
await client.connect(transport);

/** Create a job of `ms` now; resolves with its id and when it will finish (the create's midpoint plus `ms`). */
async function createJob(ms: number): Promise<{ id: string; finishesAt: number }> {
  durations.push(ms);
  const before = Date.now();
  const { id } = await sdk.videos.create({ audio_reference: join(work, 'speech.wav'), image_reference: join(work, 'portrait.png') });
  return { id, finishesAt: (before + Date.now()) / 2 + ms };
}

function pollsOf(id: string, mockServer: MockServer): number {
  return mockServer.requests.filter((request) => request.method === 'GET' && request.path === `/v1/videos/${id}`).length;
}

/** The agent's loop: wait_for_video until a result says COMPLETE. */
async function mcpWait(id: string, finishesAt: number): Promise<Finished> {
  for (let calls = 1; ; calls++) {
    const result = await client.callTool({ name: 'wait_for_video', arguments: { video_id: id } }, undefined, {
      onprogress: () => {},
      resetTimeoutOnProgress: true,
    });
    const status = (result.structuredContent as { status?: string } | undefined)?.status;
    if (result.isError) throw new Error(`wait_for_video failed: ${JSON.stringify(result.content)}`);
    if (status === 'COMPLETE') return { delay: Date.now() - finishesAt, polls: pollsOf(id, mock), calls };
  }
}

/** Runway's fixed 5 s poll, on a job of the same duration. */
async function fixedWait(id: string, finishesAt: number): Promise<Finished> {
  for (;;) {
    if ((await sdk.videos.retrieve(id)).status === 'COMPLETE')
      return { delay: Date.now() - finishesAt, polls: pollsOf(id, mock), calls: 1 };
    await sleep(FIXED_POLL_MS);
  }
}

async function latency(): Promise<Map<string, Finished[]>> {
  const waits: Array<Promise<[string, Finished]>> = [];
  for (const seconds of DURATIONS_S) {
    for (let i = 0; i < PER_DURATION; i++) {
      const ours = await createJob(seconds * 1000 + i * 700);
      waits.push(mcpWait(ours.id, ours.finishesAt).then((r) => [`mcp/${seconds}`, r]));
      const theirs = await createJob(seconds * 1000 + i * 700);
      waits.push(fixedWait(theirs.id, theirs.finishesAt).then((r) => [`fixed5/${seconds}`, r]));
    }
  }
  const results = new Map<string, Finished[]>();
  for (const [key, finished] of await Promise.all(waits)) results.set(key, [...(results.get(key) ?? []), finished]);
  return results;
}

function rssBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** The server's resident memory idle, then with 50 wait_for_video calls in flight on jobs that will not finish. */
async function memory(): Promise<{ idle: number; waiting: number }> {
  const pid = transport.pid as number;
  const idle = rssBytes(pid);
  const ids = [];
  for (let i = 0; i < WAITING_CALLS; i++) ids.push((await createJob(600_000)).id);
  const calls = ids.map((id) =>
    client.callTool({ name: 'wait_for_video', arguments: { video_id: id, wait_seconds: 20 } }, undefined, { onprogress: () => {} }),
  );
  await sleep(10_000); // every call started and polled at least once
  const waiting = rssBytes(pid);
  await Promise.all(calls);
  return { idle, waiting };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

try {
  const started = Date.now();
  const results = await latency();
  console.log(`${PER_DURATION} jobs per duration per strategy, all at once; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  console.log('duration  strategy  mean delay  worst delay  polls/job  calls/job');
  const all: Record<string, Finished[]> = { mcp: [], fixed5: [] };
  for (const seconds of DURATIONS_S) {
    for (const name of ['mcp', 'fixed5']) {
      const rows = results.get(`${name}/${seconds}`) ?? [];
      all[name]?.push(...rows);
      const cells = [
        `${seconds} s`.padEnd(9),
        name.padEnd(9),
        `${mean(rows.map((r) => r.delay)).toFixed(0)} ms`.padStart(10),
        `${Math.max(...rows.map((r) => r.delay)).toFixed(0)} ms`.padStart(12),
        mean(rows.map((r) => r.polls))
          .toFixed(1)
          .padStart(10),
        mean(rows.map((r) => r.calls))
          .toFixed(1)
          .padStart(10),
      ];
      console.log(cells.join(' '));
    }
  }
  const ours = all.mcp as Finished[];
  const theirs = all.fixed5 as Finished[];
  const delayRatio = mean(ours.map((r) => r.delay)) / mean(theirs.map((r) => r.delay));
  const pollRatio = mean(ours.map((r) => r.polls)) / mean(theirs.map((r) => r.polls));
  console.log(
    `\nall durations: mean delay mcp ${mean(ours.map((r) => r.delay)).toFixed(0)} ms, fixed5 ${mean(theirs.map((r) => r.delay)).toFixed(0)} ms`,
  );
  console.log(`ratios mcp / fixed5: mean delay ${delayRatio.toFixed(2)}x, polls/job ${pollRatio.toFixed(2)}x`);
  const { idle, waiting } = await memory();
  console.log(`\nserver memory (VmRSS): idle ${MB(idle)}, with ${WAITING_CALLS} calls waiting ${MB(waiting)}`);
  console.log(
    `  ${((waiting - idle) / WAITING_CALLS / 1024).toFixed(0)} KB per waiting call; waiting / idle = ${(waiting / idle).toFixed(2)}x`,
  );
} finally {
  await client.close();
  await sdk.close();
  await mock.close();
  await rm(work, { recursive: true, force: true });
}
