/**
 * Download speed and memory: an MP4-ish file behind a redirect from an API origin to a file-host
 * origin (plain node:http servers in a child process), fetched by the SDK's `download`, by raw undici
 * `request` + `pipeline` into `createWriteStream`, and by `curl -L -o`, interleaved over several rounds.
 * Each Node contender runs in a fresh process, compiled as the package is (bench/download-*.ts).
 * Targets: SDK >= 1.0x raw undici and >= 0.8x curl; SDK peak RSS < 150 MB, flat from 100 MiB to 1 GiB.
 * The SDK also flushes the file to disk before renaming it into place; the others do not. It reads the
 * file host's answer on a socket of its own with one reused buffer (src/internal/direct-get.ts); the
 * undici contender shows what undici's fresh 64 KiB buffer per read costs on the way to disk.
 * CPU time is printed too: on a shared machine it is steadier than throughput.
 *
 *   npx tsx bench/download.ts [rounds=3]
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile } from './support/build.js';
import { BENCH_KEY } from './support/servers.js';
import { run, spawnServers } from './support/spawn.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const MiB = 1 << 20;
const SIZES = [
  { id: 'mib100', label: '100 MiB', bytes: 100 * MiB },
  { id: 'gib1', label: '1 GiB', bytes: 1024 * MiB },
];
const CONTENDERS = ['sdk', 'undici', 'curl'] as const;
type Contender = (typeof CONTENDERS)[number];
interface Run {
  ms: number;
  bytes: number;
  cpuMs?: number;
  peakRssMB?: number;
  baseRssMB?: number;
}
/** GNU time gives curl's CPU time, when installed. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** An `ftyp` box, then random bytes (incompressible, like video). */
function writeBody(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(16 * MiB);
  try {
    for (let written = 0; written < bytes; written += chunk.length) {
      randomFillSync(chunk);
      if (written === 0) chunk.write('\0\0\0\x18ftypisom\0\0\x02\0isomiso2', 'latin1');
      writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
    }
  } finally {
    closeSync(fd);
  }
}

async function curl(url: string, output: string): Promise<Run> {
  const args = ['-sS', '-L', '-o', output, '-H', `x-api-key: ${BENCH_KEY}`, '-w', '%{time_total} %{size_download}\n', url];
  const { stdout, stderr } = TIME ? await run(TIME, ['-f', '%U %S', 'curl', ...args]) : await run('curl', args);
  const [seconds, bytes] = stdout.trim().split(' ').map(Number) as [number, number];
  const [user, system] = (stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number) as [number, number];
  return { ms: seconds * 1000, bytes, ...(TIME ? { cpuMs: (user + system) * 1000 } : {}) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const speed = (r: Run) => r.bytes / MiB / (r.ms / 1000);
const cpuPerGiB = (r: Run) => (r.cpuMs ?? Number.NaN) / (r.bytes / (1024 * MiB));

const dir = await mkdtemp(join(tmpdir(), 'avatar-bench-'));
const built = await compile(['bench/download-sdk.ts', 'bench/download-undici.ts']);
const [sdkChild, undiciChild] = built.paths as [string, string];
let servers: Awaited<ReturnType<typeof spawnServers>> | undefined;
try {
  for (const size of SIZES) writeBody(join(dir, `${size.id}.mp4`), size.bytes);
  servers = await spawnServers(dir);
  const api = servers.api;
  const download = async (who: Contender, id: string, output: string): Promise<Run> => {
    await rm(output, { force: true }); // every contender writes a new file, none overwrites one
    // Write back what the previous run left dirty, so no contender pays for another's gigabyte.
    await run('sync', []);
    if (who === 'curl') return curl(`${api}/v1/videos/${id}/content`, output);
    return JSON.parse((await run(process.execPath, [who === 'sdk' ? sdkChild : undiciChild, api, id, output])).stdout) as Run;
  };

  const runs = new Map<string, Run[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      // Rotate the order each round, so no contender always follows the same one.
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length] as Contender);
      const line: string[] = [];
      for (const who of order) {
        const result = await download(who, size.id, join(dir, `out-${who}.mp4`));
        if (result.bytes !== size.bytes) throw new Error(`${who} saved ${result.bytes} of ${size.bytes} bytes`);
        runs.set(`${size.id}/${who}`, [...(runs.get(`${size.id}/${who}`) ?? []), result]);
        line.push(`${who} ${speed(result).toFixed(0)} MiB/s${result.peakRssMB ? ` (RSS ${result.peakRssMB.toFixed(0)} MB)` : ''}`);
      }
      console.log(`round ${round + 1}, ${size.label}: ${line.join(', ')}`);
    }
  }

  console.log(`\nMedians over ${ROUNDS} rounds: throughput (MiB/s), CPU seconds per GiB, peak RSS (MB, worst round)`);
  for (const size of SIZES) {
    const of = (who: Contender) => runs.get(`${size.id}/${who}`) ?? [];
    const mbps = (who: Contender) => median(of(who).map(speed));
    const cpu = (who: Contender) => (median(of(who).map(cpuPerGiB)) / 1000).toFixed(2);
    const rss = (who: Contender) => Math.max(...of(who).map((r) => r.peakRssMB ?? 0)).toFixed(0);
    const [sdk, undici, curlSpeed] = [mbps('sdk'), mbps('undici'), mbps('curl')];
    console.log(`  ${size.label}`);
    console.log(`    throughput  sdk ${sdk.toFixed(0)}, undici ${undici.toFixed(0)}, curl ${curlSpeed.toFixed(0)}`);
    console.log(
      `    ratios      sdk/undici ${(sdk / undici).toFixed(2)}x (target >= 1.0), sdk/curl ${(sdk / curlSpeed).toFixed(2)}x (target >= 0.8)`,
    );
    console.log(`    cpu s/GiB   sdk ${cpu('sdk')}, undici ${cpu('undici')}, curl ${cpu('curl')}`);
    const started = median(of('sdk').map((r) => r.baseRssMB ?? 0)).toFixed(0);
    console.log(`    peak RSS    sdk ${rss('sdk')} (${started} once started; target < 150), undici ${rss('undici')}`);
  }
} finally {
  await servers?.stop();
  await built.remove();
  await rm(dir, { recursive: true, force: true });
}
