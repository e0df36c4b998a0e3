/**
 * Soak: 100 `generate` calls, 10 at a time, against the loopback mock behind two fault-injecting fronts
 * (one for the API, one for the file host). 15% of requests misbehave: 429, 503, a reset before the
 * answer, a stalled answer, an HTML 502, a body cut short, and on the content endpoint a 200 JSON that
 * stalls after 6 bytes (the answer that used to be spliced onto the video). A create only ever gets 429
 * or 503: the faults that prove no job started (the SDK rightly never repeats a create that may have).
 * Checks: 100 files byte-identical (sha256) to what the mock serves, no job created twice, no temp file left.
 * Not part of the unit suite (it takes a minute or two).
 *
 *   npx tsx bench/soak.ts [calls=100] [concurrency=10]
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvatarVideo } from '../src/index.js';
import { startMockServer } from '../src/testing/index.js';
import { wav } from '../test/helpers/media.js';

const CALLS = Number(process.argv[2] ?? 100);
const CONCURRENCY = Number(process.argv[3] ?? 10);
const FAULT_RATE = 0.15;
const TIMEOUT = 1_500;

type Fault = '429' | '503' | 'reset' | 'stall' | 'html502' | 'cut' | 'json-stall';
const faults: Record<Fault, number> = { '429': 0, '503': 0, reset: 0, stall: 0, html502: 0, cut: 0, 'json-stall': 0 };

function pickFault(req: IncomingMessage): Fault | undefined {
  if (Math.random() >= FAULT_RATE) return undefined;
  if (req.method === 'POST') return Math.random() < 0.5 ? '429' : '503';
  const kinds: Fault[] = ['429', '503', 'reset', 'stall', 'html502', 'cut'];
  if (req.url?.endsWith('/content')) kinds.push('json-stall', 'json-stall');
  return kinds[Math.floor(Math.random() * kinds.length)];
}

/** Answer with the fault; false when the request should be forwarded with its body cut short instead. */
function injure(fault: Fault, res: ServerResponse): boolean {
  faults[fault] += 1;
  switch (fault) {
    case '429':
    case '503':
      res.writeHead(Number(fault), { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: { code: fault === '429' ? 'rate_limited' : 'unavailable', message: 'injected' } }));
      return true;
    case 'reset':
      res.socket?.destroy();
      return true;
    case 'stall':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000000' });
      res.write(Buffer.alloc(10));
      return true;
    case 'html502':
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><title>502 Bad Gateway</title></html>');
      return true;
    case 'json-stall':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' }).write('{"id":');
      return true;
    case 'cut':
      return false;
  }
}

/** A front that forwards to `target`, injecting faults, and points redirects to the mock's CDN at `cdnFront`. */
async function faultyFront(target: string, rewrite: () => [string, string] | undefined) {
  const server = createServer((req, res) => {
    const fault = pickFault(req);
    if (fault && injure(fault, res)) return;
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const headers = { ...answer.headers };
      const swap = rewrite();
      if (swap && typeof headers.location === 'string') headers.location = headers.location.replace(swap[0], swap[1]);
      res.writeHead(answer.statusCode ?? 502, headers);
      if (fault !== 'cut') return void answer.pipe(res);
      // Half the body, then the connection drops.
      const length = Number(answer.headers['content-length'] ?? 0);
      let sent = 0;
      answer.on('data', (chunk: Buffer) => {
        if (sent >= length / 2) return void res.socket?.destroy();
        sent += chunk.length;
        res.write(chunk);
      });
      answer.on('end', () => res.socket?.destroy());
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, close };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const mock = await startMockServer({ processingMs: 300 });
let cdnFront = '';
const cdn = await faultyFront(mock.cdnURL, () => undefined);
cdnFront = cdn.url;
const api = await faultyFront(mock.baseURL, () => [mock.cdnURL, cdnFront]);
const dir = await mkdtemp(join(tmpdir(), 'avatar-soak-'));
const image = readFileSync(new URL('../test/fixtures/mock/portrait.png', import.meta.url));
const audio = wav(1);
const client = new AvatarVideo({
  apiKey: mock.apiKey,
  baseURL: api.url,
  logLevel: 'off',
  timeout: TIMEOUT,
  maxRetries: 6,
  maxRetryDelay: 200,
});
const clean = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
const started = performance.now();
try {
  const results: Array<{ id: string; path: string }> = [];
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      const index = next++;
      const output = join(dir, `video-${index}.mp4`);
      try {
        const { video, path } = await client.videos.generate(
          { audio_reference: audio, image_reference: image },
          { output, pollInterval: 100, maxPollInterval: 300 },
        );
        results.push({ id: video.id, path });
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  let identical = 0;
  for (const { id, path } of results) {
    const content = await clean.videos.content(id);
    const chunks: Buffer[] = [];
    for await (const chunk of content.body) chunks.push(chunk as Buffer);
    if (sha256(Buffer.concat(chunks)) === sha256(await readFile(path))) identical += 1;
  }
  const ids = new Set(results.map((r) => r.id));
  const leftovers = readdirSync(dir).filter((name) => name.endsWith('.part'));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`faults injected: ${JSON.stringify(faults)}`);
  console.log(`${CALLS} generate calls in ${seconds} s: ${results.length} saved, ${failures.length} failed`);
  for (const failure of failures.slice(0, 5)) console.log(`  failure: ${(failure as Error).name}: ${(failure as Error).message}`);
  console.log(`byte-identical to the mock's file (sha256): ${identical}/${results.length}`);
  console.log(`jobs created: ${mock.creates} for ${CALLS} calls (distinct ids saved: ${ids.size})`);
  console.log(`temp files left: ${leftovers.length}`);
  const ok = identical === CALLS && mock.creates === CALLS && ids.size === CALLS && leftovers.length === 0;
  console.log(ok ? 'PASS' : 'FAIL');
  process.exitCode = ok ? 0 : 1;
} finally {
  await client.close();
  await clean.close();
  await Promise.all([api.close(), cdn.close(), mock.close()]);
  await rm(dir, { recursive: true, force: true });
}
