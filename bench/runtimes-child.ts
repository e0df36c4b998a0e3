/**
 * Child of bench/runtimes.ts, compiled before it runs, in Node, Bun or Deno: one contender's first answer (printed as
 * `first` the moment it is parsed, for the parent's cold-start clock), then sequential polls (bench/poll.ts's measure),
 * then its resident memory. `sdk` is `videos.retrieve`; `fetch` the runtime's own fetch and a JSON parse; `duties` that
 * fetch doing what every poll of the SDK must (below); `undici` undici's `request` (Node). Each loads only what it uses.
 *
 *   <runtime> runtimes-child.js <sdk|fetch|duties|undici> <api origin> <calls>
 */
import process from 'node:process';
import { measurePolls } from './support/report-poll.js';
import { BENCH_KEY } from './support/servers.js';

const [who, api, calls] = process.argv.slice(-3) as ['sdk' | 'fetch' | 'duties' | 'undici', string, string];
const headers = { 'x-api-key': BENCH_KEY, accept: 'application/json' };
const url = `${api}/v1/videos/vid_1`;

const LIMIT = 8 << 20;
const decoder = new TextDecoder();

/** A chunked answer read chunk by chunk, given up past the SDK's 8 MiB limit for JSON. */
async function boundedText(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let size = 0; ; ) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > LIMIT) throw new Error(`answer over ${LIMIT} bytes`);
    chunks.push(value);
  }
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

/**
 * The floor under any SDK's poll, in one function: a deadline that aborts the request, redirects left to the caller
 * (the key must not follow one), the headers kept (request id, Retry-After), the answer read bounded, then parsed.
 */
async function duties(): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    const response = await fetch(url, { headers, redirect: 'manual', signal: controller.signal });
    const kept: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      kept[name] = value;
    });
    return JSON.parse(await boundedText(response.body as ReadableStream<Uint8Array>));
  } finally {
    clearTimeout(timer);
  }
}

/** The contender's call, and how to let its connections go. */
async function contender(): Promise<{ call: () => Promise<unknown>; close: () => Promise<void> }> {
  if (who === 'sdk') {
    // Compiled beside this file as a module of its own, so the raw contenders never parse it.
    const entry: string = './index.js';
    const { AvatarVideo } = (await import(entry)) as typeof import('../src/index.js');
    const client = new AvatarVideo({ apiKey: BENCH_KEY, baseURL: api, logLevel: 'off' });
    return { call: () => client.videos.retrieve('vid_1'), close: () => client.close() };
  }
  if (who === 'undici') {
    const { Agent } = await import('undici');
    const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
    const origin = new URL(api).origin;
    const call = async () => (await agent.request({ origin, path: '/v1/videos/vid_1', method: 'GET', headers })).body.json();
    return { call, close: () => agent.close() };
  }
  if (who === 'duties') return { call: duties, close: async () => {} };
  return { call: async () => (await fetch(url, { headers })).json(), close: async () => {} };
}

const { call, close } = await contender();
await call();
process.stdout.write('first\n');
await measurePolls(Number(calls), call);
process.stdout.write(`${JSON.stringify({ rssMB: process.memoryUsage().rss / 2 ** 20 })}\n`);
await close();
