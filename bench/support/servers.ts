import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { video } from '../../test/helpers/raw-server.js';

export const BENCH_KEY = 'sk-bench-key';

/** The video the bench API reports: COMPLETE, so the SDK downloads at once. */
export const benchVideo = (id: string) => video(id, { status: 'COMPLETE', completed_at: 1_700_000_060, progress: 100 });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Two plain node:http servers, as in production: the API answers retrieve and redirects content to a
 * file host on another origin, which serves `<dir>/<id>.mp4` (with Content-Length, ETag and byte ranges).
 * `fileHostOrigin`: the origin the redirects name instead of the file host's own, e.g. a shaped link to it.
 */
export async function startBenchServers(dir: string | undefined, fileHostOrigin?: string) {
  const cdn = createServer((req, res) => {
    const id = /^\/files\/(\w+)\.mp4/.exec(req.url ?? '')?.[1];
    if (!dir || !id) return void res.writeHead(404).end();
    const file = join(dir, `${id}.mp4`);
    const size = statSync(file).size;
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {
      'content-type': 'video/mp4',
      'content-length': String(size - start),
      etag: `"${size}"`,
      'accept-ranges': 'bytes',
    };
    if (start > 0) headers['content-range'] = `bytes ${start}-${size - 1}/${size}`;
    res.writeHead(start > 0 ? 206 : 200, headers);
    // 1 MiB reads keep the server from being the bottleneck.
    createReadStream(file, { start, highWaterMark: 1 << 20 }).pipe(res);
  });
  const cdnURL = await listen(cdn);
  const redirectOrigin = fileHostOrigin ?? cdnURL;
  const body = (id: string) => JSON.stringify(benchVideo(id));
  const api = createServer((req, res) => {
    if (req.headers['x-api-key'] !== BENCH_KEY) return void res.writeHead(401).end();
    const match = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(req.url ?? '');
    if (!match?.[1]) return void res.writeHead(404).end();
    if (match[2]) return void res.writeHead(302, { location: `${redirectOrigin}/files/${match[1]}.mp4?sig=bench` }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body(match[1]));
  });
  const apiURL = await listen(api);
  return {
    api: apiURL,
    cdn: cdnURL,
    close: async () => {
      for (const server of [api, cdn]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
