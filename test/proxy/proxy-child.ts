/**
 * A proxy in a process of its own, so its memory can be measured alone: `toNodeHandler(createProxyHandler(...))` on a
 * loopback port for the API at argv[2] with the key argv[3] (every call allowed; uploads up to argv[4] bytes).
 * Prints `{"url"}` once it listens; then for each line on stdin: `reset` clears the peak resident memory and prints
 * `{"rss"}`, `peak` prints `{"peak"}` (bytes), `gc` collects the heap and prints `{"collected"}`. It exits when stdin
 * ends. Run with `node --expose-gc --import tsx`.
 */
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { createProxyHandler, toNodeHandler } from '../../src/proxy/index.js';

const [baseURL = '', apiKey = '', maxUploadBytes = '0'] = process.argv.slice(2);
const handler = createProxyHandler({ apiKey, baseURL, authorize: () => true, maxUploadBytes: Number(maxUploadBytes) });
const server = createServer(toNodeHandler(handler));
server.listen(0, '127.0.0.1');
await once(server, 'listening');
console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));

/** The peak resident memory since the last reset (Linux's VmHWM), else since start. */
function peak(): number {
  const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return kb ? Number(kb) * 1024 : process.resourceUsage().maxRSS * 1024;
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'reset') {
    globalThis.gc?.();
    // Writing 5 to clear_refs resets VmHWM to the current resident size (Linux 4.0 and later).
    writeFileSync('/proc/self/clear_refs', '5');
    console.log(JSON.stringify({ rss: process.memoryUsage.rss() }));
  }
  if (line === 'peak') console.log(JSON.stringify({ peak: peak() }));
  if (line === 'gc') {
    // Twice, a turn apart: what the first frees may hold what only the second can.
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc?.();
    console.log(JSON.stringify({ collected: typeof globalThis.gc === 'function' }));
  }
}
server.closeAllConnections();
server.close();
