/**
 * Creates paced to a create rate: the mock accepts at most 2 creates in any 6 s window (the service's 2 a minute, 10x
 * faster) and answers the service's 429 body; its jobs take 2.5 s. Each kind of work (a batch of 8 items, 6 generate
 * at once on one client, a generateLong of 9 segments) runs three ways: the client learning the rate from 429s
 * without Retry-After, learning it with Retry-After, and told the rate. The work runs in a child process compiled like
 * the package (bench/create-rate-child.ts); the mock runs here. Ideal wall = (ceil(jobs / 2) - 1) x 6 + 2.5 s.
 *
 *   npx tsx bench/create-rate.ts [rows=all: a comma-separated list such as batch/learned,long/declared]
 *
 * Targets: learned without Retry-After <= 1.2x ideal and <= 0.5 answers 429 per job; with Retry-After <= 1.1x;
 * declared 0 answers 429 and <= 1.05x.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../src/testing/index.js';
import { speechLikeWav, wav } from '../test/helpers/media.js';
import type { ChildArgs } from './create-rate-child.js';
import { compile } from './support/build.js';
import { run } from './support/spawn.js';

const RATE = { limit: 2, windowSeconds: 6 };
const PROCESSING_MS = 2_500;
const IMAGE = fileURLToPath(new URL('../test/fixtures/mock/portrait.png', import.meta.url));
const MB = 2 ** 20;
const WORKS = [
  { work: 'batch', label: 'generateBatch, 8 items', jobs: 8 },
  { work: 'generate', label: '6 generate at once', jobs: 6 },
  { work: 'long', label: 'generateLong, 9 segments', jobs: 9 },
] as const;
const MODES = [
  { mode: 'learned', label: 'learned, no Retry-After', retryAfter: false, declared: false, ratio: 1.2, perJob: 0.5 },
  { mode: 'retry-after', label: 'learned, Retry-After', retryAfter: true, declared: false, ratio: 1.1, perJob: Number.POSITIVE_INFINITY },
  { mode: 'declared', label: 'declared 2/6', retryAfter: false, declared: true, ratio: 1.05, perJob: 0 },
] as const;
const only = process.argv[2]?.split(',');

const built = await compile(['bench/create-rate-child.ts']);
const work = await mkdtemp(join(tmpdir(), 'bench-create-rate-'));
const audio = join(work, 'speech.wav');
const longAudio = join(work, 'long.wav');
await writeFile(audio, wav(1));
// Speech-like audio (a pause every 2 s) of 100 s, cut within 12 s just below the billing step's multiples (11.9 s):
// nine segments.
const MAX_SEGMENT_SECONDS = 12;
await writeFile(longAudio, speechLikeWav(100));

interface ChildResult {
  wallMs: number;
  cpuMs: number;
  peakRss: number;
  jobs: number;
}

async function row(work_: (typeof WORKS)[number], mode: (typeof MODES)[number]) {
  const server = await startMockServer({
    processingMs: PROCESSING_MS,
    createRate: { ...RATE, retryAfter: mode.retryAfter },
  });
  const outputDir = join(work, `${work_.work}-${mode.mode}`);
  await mkdir(outputDir, { recursive: true });
  try {
    const args: ChildArgs = {
      baseURL: server.baseURL,
      apiKey: server.apiKey,
      work: work_.work,
      declared: mode.declared ? RATE : undefined,
      jobs: work_.jobs,
      audio,
      longAudio,
      maxSegmentSeconds: MAX_SEGMENT_SECONDS,
      image: IMAGE,
      outputDir,
    };
    const { stdout } = await run(process.execPath, [built.paths[0] as string, JSON.stringify(args)]);
    const child = JSON.parse(stdout) as ChildResult;
    const throttled = server.throttledCreates;
    return { ...child, throttled, posts: server.creates + throttled };
  } finally {
    await server.close();
  }
}

const pad = (text: string | number, width: number) => String(text).padEnd(width);
console.log(
  `create rate ${RATE.limit} per ${RATE.windowSeconds} s, jobs of ${PROCESSING_MS / 1000} s; ideal = (ceil(jobs/2) - 1) x ${RATE.windowSeconds} + ${PROCESSING_MS / 1000} s`,
);
console.log(
  `${pad('work', 26)}${pad('rate', 25)}${pad('jobs', 6)}${pad('wall', 9)}${pad('ideal', 8)}${pad('x ideal', 9)}${pad('429s', 6)}${pad('POSTs', 7)}${pad('429/job', 9)}${pad('CPU', 9)}${pad('peak RSS', 10)}target`,
);
try {
  for (const w of WORKS) {
    for (const mode of MODES) {
      if (only && !only.includes(`${w.work}/${mode.mode}`)) continue;
      const r = await row(w, mode);
      const ideal = ((Math.ceil(r.jobs / RATE.limit) - 1) * RATE.windowSeconds * 1000 + PROCESSING_MS) / 1000;
      const ratio = r.wallMs / 1000 / ideal;
      const perJob = r.throttled / r.jobs;
      const met = ratio <= mode.ratio && perJob <= mode.perJob;
      const target = `<= ${mode.ratio}x${Number.isFinite(mode.perJob) ? `, <= ${mode.perJob} 429/job` : ''}`;
      console.log(
        `${pad(w.label, 26)}${pad(mode.label, 25)}${pad(r.jobs, 6)}${pad(`${(r.wallMs / 1000).toFixed(1)} s`, 9)}${pad(`${ideal} s`, 8)}${pad(`${ratio.toFixed(2)}x`, 9)}${pad(r.throttled, 6)}${pad(r.posts, 7)}${pad(perJob.toFixed(2), 9)}${pad(`${(r.cpuMs / 1000).toFixed(2)} s`, 9)}${pad(`${(r.peakRss / MB).toFixed(0)} MB`, 10)}${target}: ${met ? 'met' : 'MISSED'}`,
      );
    }
  }
} finally {
  await built.remove();
  await rm(work, { recursive: true, force: true });
}
