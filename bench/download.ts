/**
 * Download speed, CPU and memory: an MP4 (ftyp, moov, then a random mdat) behind a redirect from an API
 * origin to a file-host origin (plain node:http servers in a child process), fetched by the SDK's
 * `download`, by raw undici `request` + `pipeline` into `createWriteStream`, and by `curl -L -o`,
 * interleaved over several rounds, each Node contender in a fresh process compiled as the package is
 * (bench/download-*.ts). The SDK speaks HTTP only through undici; it also checks the file's boxes and
 * flushes it to disk before renaming it into place, which the others do not.
 * Targets: SDK/undici throughput >= 1.0x, SDK CPU <= undici's, SDK peak RSS <= 120 MB and flat across sizes.
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
  { id: 'mb20', label: '20 MB', bytes: 20_000_000 },
  { id: 'mib256', label: '256 MiB', bytes: 256 * MiB },
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

/** Boxes the SDK's check accepts: `ftyp`, a `moov`, then an `mdat` of random bytes (incompressible, like video). */
function writeBody(path: string, bytes: number): void {
  const head = Buffer.alloc(96);
  head.writeUInt32BE(24, 0);
  head.write('ftypisom\0\0\x02\0isomiso2', 4, 'latin1');
  head.writeUInt32BE(64, 24);
  head.write('moov', 28, 'latin1');
  head.writeUInt32BE(bytes - 88, 88);
  head.write('mdat', 92, 'latin1');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(16 * MiB);
  try {
    for (let written = 0; written < bytes; written += chunk.length) {
      randomFillSync(chunk);
      if (written === 0) head.copy(chunk);
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
    const cpu = (who: Contender) => median(of(who).map(cpuPerGiB)) / 1000;
    const rss = (who: Contender) => Math.max(...of(who).map((r) => r.peakRssMB ?? 0)).toFixed(0);
    const [sdk, undici, curlSpeed] = [mbps('sdk'), mbps('undici'), mbps('curl')];
    console.log(`  ${size.label}`);
    console.log(`    throughput  sdk ${sdk.toFixed(0)}, undici ${undici.toFixed(0)}, curl ${curlSpeed.toFixed(0)}`);
    console.log(`    ratios      sdk/undici ${(sdk / undici).toFixed(2)}x (target >= 1.0), sdk/curl ${(sdk / curlSpeed).toFixed(2)}x`);
    const cpuRatio = (cpu('sdk') / cpu('undici')).toFixed(2);
    console.log(
      `    cpu s/GiB   sdk ${cpu('sdk').toFixed(2)}, undici ${cpu('undici').toFixed(2)}, curl ${cpu('curl').toFixed(2)}; sdk/undici ${cpuRatio}x (target <= 1.0)`,
    );
    const started = median(of('sdk').map((r) => r.baseRssMB ?? 0)).toFixed(0);
    console.log(`    peak RSS    sdk ${rss('sdk')} (${started} once started; target <= 120, flat), undici ${rss('undici')}`);
  }
} finally {
  await servers?.stop();
  await built.remove();
  await rm(dir, { recursive: true, force: true });
}
