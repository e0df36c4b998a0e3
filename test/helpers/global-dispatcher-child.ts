/**
 * A process of its own, whose undici and Node's own fetch nothing has touched yet: it makes the SDK's first requests
 * (a create, then a retrieve) to the API at argv[3] with AVATAR_VIDEO_API_KEY, then what argv[2] names — `fetch`:
 * Node's own fetch POSTs a Blob and a Uint8Array with an explicit content-length; `undici`: the application's own
 * `require('undici')` POSTs the same with undici's default dispatcher. Prints one JSON line of what it saw.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type * as Undici from 'undici';
import { AvatarVideo } from '../../src/index.js';

// undici's process-wide dispatcher under each version of its API: 1 is the one Node's own fetch reads.
const GLOBAL_DISPATCHERS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];
const [scenario, baseURL] = process.argv.slice(2) as ['fetch' | 'undici', string];
const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
// Required, not imported: on Node 22 and later an ESM import of node:http reads its lazy WebSocket export, which loads
// Node's own undici and so installs Node's dispatcher first, hiding what the SDK would do to an app that has not.
const require = createRequire(import.meta.url);
const globals = () => GLOBAL_DISPATCHERS.map((key) => (globalThis as Record<symbol, unknown>)[key]);

/** What a request answered, or the failure and its cause's code (undici's `UND_ERR_...`). */
async function outcome(send: () => Promise<string>): Promise<string> {
  try {
    return await send();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `failed: ${String(error)} (${cause?.code ?? ''} ${cause?.message ?? ''})`;
  }
}

/** A local server that answers each POST with the number of bytes it received. */
async function countingServer() {
  const server = (require('node:http') as typeof Http).createServer((request, response) => {
    let received = 0;
    request.on('data', (chunk: Buffer) => (received += chunk.length));
    request.on('end', () => response.end(`received ${received}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const before = globals();
const client = new AvatarVideo({ baseURL, logLevel: 'off', maxRetries: 0 });
const created = await client.videos.create({ audio_reference: `${media}speech.wav`, image_reference: `${media}portrait.png` });
const retrieved = await client.videos.retrieve(created.id);
const untouched = globals().every((value, index) => value === before[index]);
const { server, url } = await countingServer();
const bodies = { blob: new Blob(['hello']), bytes: new Uint8Array([104, 101, 108, 108, 111]) };
const sent: Record<string, string> = {};
for (const [name, body] of Object.entries(bodies)) {
  sent[name] = await outcome(async () => {
    if (scenario === 'undici') {
      const { request } = require('undici') as typeof Undici;
      const bytes = body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : body; // undici's request takes no Blob
      const answer = await request(url, { method: 'POST', body: bytes, headers: { 'content-length': '5' } });
      return answer.body.text();
    }
    const answer = await fetch(url, { method: 'POST', body, headers: { 'content-length': '5' } });
    return answer.text();
  });
}
server.close();
await client.close();
const unsetBefore = before.every((value) => value === undefined);
process.stdout.write(`${JSON.stringify({ unsetBefore, retrieved: retrieved.id === created.id, untouched, sent })}\n`);
