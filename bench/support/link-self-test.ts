import { BENCH_KEY } from './servers.js';
import type { ShapedLink } from './shaped-link.js';
import { run } from './spawn.js';

interface Timing {
  ms: number;
  firstByteMs: number;
  bytes: number;
}

/**
 * curl's timings of each URL, fetched in order on one connection where it can: total and time to the first
 * byte of the body, in ms, and the body's size. curl runs in a process of its own, so it does not take the
 * relays' thread (an in-process client would, and the rate it saw would be the relay's minus its own).
 */
async function curlTimes(urls: string[]): Promise<Timing[]> {
  const args = ['-sS', '-H', `x-api-key: ${BENCH_KEY}`, '-w', '%{time_total} %{time_starttransfer} %{size_download}\n'];
  const { stdout } = await run('curl', [...args, ...urls.flatMap((url) => ['-o', '/dev/null', url])]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [total, firstByte, bytes] = line.split(' ').map(Number) as [number, number, number];
      return { ms: total * 1000, firstByteMs: firstByte * 1000, bytes };
    });
}

/** A small GET on a new connection, another on the same one kept alive, then `file` from the file host. */
async function measureLink(api: ShapedLink, fileHost: ShapedLink, file: string) {
  const [fresh, kept] = (await curlTimes([`${api.url}/v1/videos/self_test`, `${api.url}/v1/videos/self_test`])) as [Timing, Timing];
  const [transfer] = (await curlTimes([`${fileHost.url}/files/${file}`])) as [Timing];
  return { fresh, kept, transfer };
}

/**
 * Check the relays do what they say before timing anything through them: a small request on a new connection
 * (a handshake's round trip, then the request's: about 4x the one-way delay), the same on the kept-alive
 * connection (about 2x), and a file's rate from its first byte to its last (about the pace).
 * Returns the lines to print.
 */
export async function selfTest(api: ShapedLink, fileHost: ShapedLink, file: string): Promise<string> {
  // Once to warm up the JIT here and in the servers (a cold first pass runs at a fraction of the pace).
  await measureLink(api, fileHost, file);
  const { fresh, kept, transfer } = await measureLink(api, fileHost, file);
  const { oneWayMs, bitsPerSecond, label } = api.shape;
  const mbits = (transfer.bytes * 8) / ((transfer.ms - transfer.firstByteMs) / 1000) / 1e6;
  return [
    `link ${label}:`,
    `  small GET, new connection  ${fresh.ms.toFixed(1)} ms (expect ~${4 * oneWayMs} ms: handshake + request round trips)`,
    `  small GET, kept alive      ${kept.ms.toFixed(1)} ms (expect ~${2 * oneWayMs} ms: one round trip)`,
    `  ${(transfer.bytes / 1e6).toFixed(0)} MB body             ${mbits.toFixed(0)} Mbit/s (paced at ${bitsPerSecond / 1e6} Mbit/s)`,
  ].join('\n');
}
