import { randomFillSync } from 'node:crypto';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { BENCH_KEY } from './servers.js';
import { run } from './spawn.js';

export const MiB = 1 << 20;
export const CONTENDERS = ['sdk', 'undici', 'curl'] as const;
export type Contender = (typeof CONTENDERS)[number];

/** One download, as its process measured it. */
export interface Run {
  ms: number;
  bytes: number;
  /** User + system CPU time of the downloading process. */
  cpuMs?: number;
  /** Peak resident memory of the downloading process. */
  peakRssMB?: number;
  /** Resident memory once the Node contenders had started, before downloading. */
  baseRssMB?: number;
}

/** GNU time gives curl's CPU time and peak RSS, when installed. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Boxes the SDK's check accepts: `ftyp`, a `moov`, then an `mdat` of random bytes (incompressible, like video). */
export function writeBody(path: string, bytes: number): void {
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
  const { stdout, stderr } = TIME ? await run(TIME, ['-f', '%U %S %M', 'curl', ...args]) : await run('curl', args);
  const [seconds, bytes] = stdout.trim().split(' ').map(Number) as [number, number];
  if (!TIME) return { ms: seconds * 1000, bytes };
  const [user, system, maxKB] = (stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number) as [number, number, number];
  return { ms: seconds * 1000, bytes, cpuMs: (user + system) * 1000, peakRssMB: maxKB / 1024 };
}

/** The compiled Node children (bench/download-sdk.ts, bench/download-undici.ts). */
export interface Children {
  sdk: string;
  undici: string;
}

/**
 * One download of video `id` from the API at `api` into `output`, in a fresh process: the Node contenders
 * report their own figures as a JSON line, curl's come from curl and GNU time.
 */
export async function download(children: Children, who: Contender, api: string, id: string, output: string): Promise<Run> {
  await rm(output, { force: true }); // every contender writes a new file, none overwrites one
  // Write back what the previous run left dirty, so no contender pays for another's gigabyte.
  await run('sync', []);
  if (who === 'curl') return curl(`${api}/v1/videos/${id}/content`, output);
  return JSON.parse((await run(process.execPath, [children[who], api, id, output])).stdout) as Run;
}
