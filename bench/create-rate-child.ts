/**
 * Child of bench/create-rate.ts, compiled like the package: one kind of work against the mock and its create rate,
 * printed as JSON (wall time, CPU time, peak RSS, jobs made). Argument: one JSON object of {@link ChildArgs}.
 */
import { AvatarVideo } from '../src/index.js';
import { peakRssBytes } from './support/peak-rss.js';

export interface ChildArgs {
  baseURL: string;
  apiKey: string;
  work: 'batch' | 'generate' | 'long';
  /** The rate told to the client; none: it learns. */
  declared: { limit: number; windowSeconds: number } | undefined;
  jobs: number;
  audio: string;
  longAudio: string;
  maxSegmentSeconds: number;
  image: string;
  outputDir: string;
}

const args = JSON.parse(process.argv[2] as string) as ChildArgs;
const client = new AvatarVideo({
  baseURL: args.baseURL,
  apiKey: args.apiKey,
  logLevel: 'off',
  ...(args.declared ? { createRate: args.declared } : {}),
});
// Polls scaled to 2.5 s jobs as the defaults (2 s to 10 s) are to jobs of a minute or two.
const wait = { pollInterval: 100, maxPollInterval: 250 };
const params = (audio: string) => ({ audio_reference: audio, image_reference: args.image });

async function work(): Promise<number> {
  if (args.work === 'batch') {
    const items = Array.from({ length: args.jobs }, (_, i) => ({ key: `item-${i}`, ...params(args.audio) }));
    const summary = await client.videos.generateBatch(items, { outputDir: args.outputDir, ...wait });
    if (summary.completed !== args.jobs) throw new Error(`batch: ${summary.completed} of ${args.jobs} completed`);
    return args.jobs;
  }
  if (args.work === 'generate') {
    const runs = Array.from({ length: args.jobs }, (_, i) =>
      client.videos.generate(params(args.audio), { output: `${args.outputDir}/out-${i}.mp4`, ...wait }),
    );
    await Promise.all(runs);
    return args.jobs;
  }
  const result = await client.videos.generateLong(params(args.longAudio), {
    output: `${args.outputDir}/long.mp4`,
    maxSegmentSeconds: args.maxSegmentSeconds,
    ...wait,
  });
  return result.segments.length;
}

const cpuBefore = process.cpuUsage();
const started = performance.now();
const jobs = await work();
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await client.close();
process.stdout.write(JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRss: peakRssBytes(), jobs }));
