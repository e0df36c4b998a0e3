/**
 * Upload speed and memory: `videos.create` with a 5 s WAV and a large MP4 video reference (300 MiB, then 1 GiB),
 * against what a user would write without the SDK (undici `request` + form-data-encoder over formdata-node's
 * `fileFromPath`), both sending to the same loopback node:http server (bench/upload-server.ts, its own process),
 * which reads and discards the body and answers 200 with a video object. Rounds are interleaved and each upload
 * runs in a fresh process, compiled as the package is, so its peak RSS is its own.
 * Targets (issue 25): SDK throughput >= 1.5x raw undici, SDK peak RSS < 150 MB, for both sizes.
 * The SDK's time includes its local validation (probing both files); the raw upload checks nothing. Each contender's
 * modules are loaded before its clock starts (the SDK's lazily loaded ones too: bench/upload-sdk.ts).
 *
 *   npx tsx bench/upload.ts [rounds=3]
 *
 * Inputs are built at run time in a temporary directory (removed at the end, also on failure or Ctrl-C): the MP4
 * is a valid 10 s file whose mdat is padded with a hole of zeros (a sparse file: no time or disk to write), so
 * local validation passes and reads cost what any page-cached read costs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, rmSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { writeLongWav, writePaddedMp4 } from '../test/support/large-media.js';
import { wholeArgs } from './support/args.js';
import { compile } from './support/build.js';
import { run } from './support/spawn.js';
import type { UploadRun } from './upload-measure.js';
import type { UploadStats } from './upload-server.js';

const [ROUNDS] = wholeArgs(['rounds', 3]);
const MiB = 1 << 20;
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 150;
const SIZES = [
  { id: 'mib300', label: '300 MiB', bytes: 300 * MiB },
  { id: 'gib1', label: '1 GiB', bytes: 1024 * MiB },
];
const CONTENDERS = ['sdk', 'undici'] as const;
type Contender = (typeof CONTENDERS)[number];
type Result = UploadRun & { bytes: number };

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SMALL_MP4 = join(ROOT, 'test/fixtures/media/mp4-10s-moov-end.mp4');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const speed = (r: Result) => r.bytes / MiB / (r.ms / 1000);
const cpuPerGiB = (r: Result) => r.cpuMs / 1000 / (r.bytes / (1024 * MiB));

/** Start the upload server child; resolves with its origin once it listens. */
async function startServer(script: string): Promise<{ api: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { api: (JSON.parse(line.toString()) as { api: string }).api, child };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin?.end();
  await exited;
}

/** Check the server got the whole body, as two file parts with the names and types a user would expect. */
function checkUpload(who: Contender, stats: UploadStats | null, fileBytes: number): number {
  if (!stats) throw new Error(`${who}: the server saw no upload`);
  if (stats.contentLength !== stats.bytes) throw new Error(`${who}: sent ${stats.bytes} bytes, declared ${stats.contentLength}`);
  const overhead = stats.bytes - fileBytes;
  if (overhead < 0 || overhead > 4096) throw new Error(`${who}: ${stats.bytes} bytes for ${fileBytes} bytes of files`);
  const seen = stats.parts.map((p) => `${p.name}:${p.type}`).sort();
  if (seen.join() !== 'audio_reference:audio/wav,video_reference:video/mp4') throw new Error(`${who}: sent parts ${seen.join(', ')}`);
  return stats.bytes;
}

const dir = await mkdtemp(join(tmpdir(), 'avatar-upload-bench-'));
let built: Awaited<ReturnType<typeof compile>> | undefined;
let server: Awaited<ReturnType<typeof startServer>> | undefined;
// Ctrl-C or a kill still removes the inputs (up to 1.3 GB of sparse files) and the compiled children.
const onSignal = (signal: NodeJS.Signals) => {
  rmSync(dir, { recursive: true, force: true });
  if (built?.paths[0]) rmSync(dirname(built.paths[0]), { recursive: true, force: true });
  process.kill(process.pid, signal);
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  const audio = join(dir, 'speech.wav');
  const audioBytes = await writeLongWav(audio, 5, 16_000, 1);
  const { size: smallBytes } = await stat(SMALL_MP4);
  const inputs = new Map<string, { path: string; bytes: number }>();
  for (const size of SIZES) {
    const path = join(dir, `reference-${size.id}.mp4`);
    inputs.set(size.id, { path, bytes: await writePaddedMp4(SMALL_MP4, path, size.bytes - smallBytes) });
  }

  built = await compile(['bench/upload-server.ts', 'bench/upload-sdk.ts', 'bench/upload-undici.ts']);
  const [serverScript, sdkChild, undiciChild] = built.paths as [string, string, string];
  server = await startServer(serverScript);
  const api = server.api;
  const upload = async (who: Contender, video: { path: string; bytes: number }): Promise<Result> => {
    const child = who === 'sdk' ? sdkChild : undiciChild;
    const result = JSON.parse((await run(process.execPath, [child, api, audio, video.path])).stdout) as UploadRun;
    const stats = (await (await fetch(`${api}/stats`)).json()) as UploadStats | null;
    return { ...result, bytes: checkUpload(who, stats, audioBytes + video.bytes) };
  };

  // Untimed: bring the inputs into the page cache and each contender's code paths (and the server's) up to speed,
  // so the first timed upload does not pay for a cold read of the file.
  const smallest = inputs.get(SIZES[0]!.id)!;
  for (const video of inputs.values())
    await pipeline(createReadStream(video.path, { highWaterMark: 4 * MiB }), new Writable({ write: (_c, _e, next) => next() }));
  for (const who of CONTENDERS) await upload(who, smallest);

  console.log(`Uploading a 5 s WAV (${(audioBytes / 1024).toFixed(0)} KiB) with each video reference, ${ROUNDS} rounds, interleaved.`);
  const runs = new Map<string, Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      // Alternate who goes first, so neither always follows the other.
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length] as Contender);
      const line: string[] = [];
      for (const who of order) {
        const result = await upload(who, inputs.get(size.id)!);
        runs.set(`${size.id}/${who}`, [...(runs.get(`${size.id}/${who}`) ?? []), result]);
        line.push(`${who} ${speed(result).toFixed(0)} MiB/s (RSS ${result.peakRssMB.toFixed(0)} MB)`);
      }
      console.log(`round ${round + 1}, ${size.label}: ${line.join(', ')}`);
    }
  }

  const rows: string[][] = [['file', 'contender', 'MiB/s median', 'MiB/s min-max', 'CPU s/GiB', 'peak RSS MB', 'RSS started MB']];
  const checks: Array<{ text: string; met: boolean }> = [];
  for (const size of SIZES) {
    const of = (who: Contender) => runs.get(`${size.id}/${who}`) ?? [];
    for (const who of CONTENDERS) {
      const speeds = of(who).map(speed);
      rows.push([
        size.label,
        who === 'sdk' ? 'SDK videos.create' : 'raw undici + form-data-encoder',
        median(speeds).toFixed(0),
        `${Math.min(...speeds).toFixed(0)}-${Math.max(...speeds).toFixed(0)}`,
        median(of(who).map(cpuPerGiB)).toFixed(2),
        Math.max(...of(who).map((r) => r.peakRssMB)).toFixed(0),
        median(of(who).map((r) => r.baseRssMB)).toFixed(0),
      ]);
    }
    const ratio = median(of('sdk').map(speed)) / median(of('undici').map(speed));
    const rss = Math.max(...of('sdk').map((r) => r.peakRssMB));
    checks.push({
      text: `${size.label}: throughput SDK/raw ${ratio.toFixed(2)}x (target >= ${TARGET_RATIO})`,
      met: ratio >= TARGET_RATIO,
    });
    checks.push({
      text: `${size.label}: SDK peak RSS ${rss.toFixed(0)} MB, worst round (target < ${TARGET_RSS_MB} MB)`,
      met: rss < TARGET_RSS_MB,
    });
  }
  console.log(`\nMedians over ${ROUNDS} rounds; peak RSS is the worst round, RSS started is once modules are loaded (MB = 10^6 bytes).`);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`);
  console.log('');
  for (const check of checks) console.log(`  ${check.met ? 'met   ' : 'MISSED'}  ${check.text}`);
  if (checks.some((check) => !check.met)) process.exitCode = 1;
} finally {
  if (server) await stopServer(server.child);
  await built?.remove();
  await rm(dir, { recursive: true, force: true });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
