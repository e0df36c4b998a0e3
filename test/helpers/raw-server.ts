import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bodyBytes: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, index: number) => unknown;

/** A plain node:http server on loopback, for transport cases the mock does not stage (resets, stalls). */
export async function rawServer(handler: Handler) {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const index = requests.length;
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes: 0 };
    requests.push(seen);
    req.on('data', (chunk: Buffer) => {
      seen.bodyBytes += chunk.length;
    });
    await handler(req, res, index);
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** TCP connections accepted so far. */
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const video = (id = 'vid_1', extra: Record<string, unknown> = {}) => ({
  id,
  object: 'video',
  status: 'PROCESSING',
  created_at: 1_700_000_000,
  completed_at: null,
  progress: 0,
  error: null,
  model: 'service-avatar-x',
  generation_mode: 'image_to_video',
  aspect_ratio: '16:9',
  source_video_id: null,
  caption_template_id: null,
  video_id: id,
  ...extra,
});
