/**
 * Child of bench/upload.ts, compiled before it runs: the loopback API both upload contenders send to, on its own
 * process (so its CPU time is not the client's). A plain node:http server on 127.0.0.1 that reads and discards each
 * upload, counting its bytes, then answers 200 with a video object. `GET /stats` returns what the last upload
 * looked like (bytes, declared length, the multipart parts seen in its first MiB), so the bench can check both
 * contenders sent the same thing. Prints its origin as one JSON line; exits when its stdin closes.
 *
 *   node upload-server.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { video as videoObject } from '../test/helpers/raw-server.js';
import { BENCH_KEY } from './support/servers.js';

/** The job `create` answers with: a video-to-video job just queued. */
const video = (id: string) => videoObject(id, { generation_mode: 'video_to_video' });

export interface UploadStats {
  /** Body bytes received. */
  bytes: number;
  /** The Content-Length header, if any. */
  contentLength: number | undefined;
  contentType: string;
  /** Parts whose headers were seen in the first MiB of the body (both file parts of the bench start there). */
  parts: Array<{ name: string; filename: string | undefined; type: string | undefined }>;
  /** From the request's arrival to the end of its body, on the server's clock. */
  serverMs: number;
}

const HEAD_BYTES = 1 << 20;
const PART = /Content-Disposition: form-data; name="([^"]*)"(?:; filename="([^"]*)")?(?:\r\nContent-Type: ([^\r]*))?/gi;

let last: UploadStats | undefined;
let uploads = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(last ?? null));
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/videos' || req.headers['x-api-key'] !== BENCH_KEY) {
    req.resume();
    res.writeHead(404).end();
    return;
  }
  const started = performance.now();
  const head: Buffer[] = [];
  let headBytes = 0;
  let bytes = 0;
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (headBytes < HEAD_BYTES) {
      head.push(chunk);
      headBytes += chunk.length;
    }
  });
  req.on('end', () => {
    const text = Buffer.concat(head).subarray(0, HEAD_BYTES).toString('latin1');
    const declared = Number(req.headers['content-length']);
    last = {
      bytes,
      contentLength: Number.isFinite(declared) ? declared : undefined,
      contentType: req.headers['content-type'] ?? '',
      parts: [...text.matchAll(PART)].map(([, name, filename, type]) => ({ name: name ?? '', filename, type })),
      serverMs: performance.now() - started,
    };
    uploads += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(video(`vid_upload_${uploads}`)));
  });
});

await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ api: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
