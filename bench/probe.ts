/**
 * Probe cost: time and bytes read to measure a 60 s WAV, 60 s VBR MP3s without a Xing header and a 300 MB MP4
 * whose moov is at the end. Targets: under 20 ms and under 1 MB read per probe.
 *
 *   npx tsx bench/probe.ts
 *
 * Inputs are built at run time in a temporary directory (removed at the end) from the committed fixtures. Media data
 * a probe must not read is left as holes in sparse files, so building a 300 MB file costs no time.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSource } from '../src/internal/source.js';
import { probeSource } from '../src/lib/media/probe.js';
import { countingSource } from '../src/lib/media/reader.js';
import { writeHighBitrateVbrMp3, writeLongWav, writePaddedMp4, writeRepeatedMp3 } from '../test/support/large-media.js';

const FIXTURES = join(import.meta.dirname, '../test/fixtures/media');
const RUNS = 25;
const TARGET_MS = 20;
const TARGET_BYTES = 1024 * 1024;

interface Case {
  name: string;
  make: (path: string) => Promise<unknown>;
  /** Informational rows show a known limit; they are not held to the targets. */
  informational?: boolean;
}

const cases: Case[] = [
  { name: '60 s WAV, 48 kHz stereo 16-bit', make: (path) => writeLongWav(path, 60) },
  // 24 copies of a 2.53 s speech encode (LAME -q:a 8, ~55 kbps): 60.8 s, every frame header visited.
  { name: '60 s VBR MP3 speech, no Xing', make: (path) => writeRepeatedMp3(join(FIXTURES, 'mp3-mpeg1-vbr-noxing.mp3'), path, 24) },
  { name: '60 s MP3 with Info/LAME tag', make: (path) => writeRepeatedMp3(join(FIXTURES, 'mp3-60.0s.mp3'), path, 1) },
  { name: '300 MB MP4, moov at the end', make: (path) => writePaddedMp4(join(FIXTURES, 'mp4-10s-moov-end.mp4'), path, 300 * 1024 * 1024) },
  // 2297 frames at 128-320 kbps: without a header the whole file is the measurement.
  { name: '60 s VBR MP3 ~220 kbps, no Xing', make: (path) => writeHighBitrateVbrMp3(path, 2297), informational: true },
];

async function probeOnce(path: string) {
  const source = countingSource(await openSource(path, 'bench'));
  const started = performance.now();
  try {
    const info = await probeSource(source);
    return { ms: performance.now() - started, bytesRead: source.bytesRead, reads: source.reads, info };
  } finally {
    await source.dispose();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : kb(bytes));

const dir = await mkdtemp(join(tmpdir(), 'probe-bench-'));
try {
  const rows: string[][] = [['input', 'file size', 'measured', 'first ms', 'median ms', 'max ms', 'read', 'reads', 'target']];
  let failed = false;
  for (const [index, testCase] of cases.entries()) {
    const path = join(dir, `input-${index}`);
    await testCase.make(path);
    const size = (await stat(path)).size;
    const first = await probeOnce(path);
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await probeOnce(path));
    const ms = runs.map((run) => run.ms);
    const met = median(ms) < TARGET_MS && first.bytesRead < TARGET_BYTES;
    if (!met && !testCase.informational) failed = true;
    const measured = first.info.durationSeconds !== undefined ? `${first.info.durationSeconds.toFixed(3)} s` : '';
    rows.push([
      testCase.name,
      mb(size),
      measured,
      first.ms.toFixed(2),
      median(ms).toFixed(2),
      Math.max(...ms).toFixed(2),
      kb(first.bytesRead),
      String(first.reads),
      met ? 'met' : testCase.informational ? 'over (informational)' : 'MISSED',
    ]);
    await rm(path);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  console.log(
    `\nTarget: median under ${TARGET_MS} ms and under ${mb(TARGET_BYTES)} read per probe (${RUNS} runs after a first, cold one).`,
  );
  if (failed) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
