import { Agent } from 'undici';
import { BENCH_KEY } from './servers.js';
import type { ShapedLink } from './shaped-link.js';

/** How long one GET takes to answer, in ms, and the size of its body once read. */
async function timedGet(agent: Agent, url: string): Promise<{ ms: number; firstByteMs: number; bytes: number }> {
  const started = performance.now();
  const response = await agent.request({
    origin: new URL(url).origin,
    path: new URL(url).pathname,
    method: 'GET',
    headers: { 'x-api-key': BENCH_KEY },
  });
  const firstByteMs = performance.now() - started;
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  return { ms: performance.now() - started, firstByteMs, bytes };
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
  const bodyMs = transfer.ms - transfer.firstByteMs;
  const mbits = (transfer.bytes * 8) / (bodyMs / 1000) / 1e6;
  return [
    `link ${label}:`,
    `  small GET, new connection  ${fresh.ms.toFixed(1)} ms (expect ~${4 * oneWayMs} ms: handshake + request round trips)`,
    `  small GET, kept alive      ${kept.ms.toFixed(1)} ms (expect ~${2 * oneWayMs} ms: one round trip)`,
    `  ${(transfer.bytes / 1e6).toFixed(0)} MB body             ${mbits.toFixed(0)} Mbit/s (paced at ${bitsPerSecond / 1e6} Mbit/s)`,
  ].join('\n');
}

/** A small GET on a new connection, another on the same one kept alive, then `file` from the file host. */
async function measureLink(api: ShapedLink, fileHost: ShapedLink, file: string) {
  const agent = new Agent({ connections: 1 });
  try {
    const fresh = await timedGet(agent, `${api.url}/v1/videos/self_test`);
    const kept = await timedGet(agent, `${api.url}/v1/videos/self_test`);
    const transfer = await timedGet(agent, `${fileHost.url}/files/${file}`);
    return { fresh, kept, transfer };
  } finally {
    await agent.close();
  }
}
