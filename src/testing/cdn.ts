import { createHash } from 'node:crypto';
import { errorResponse } from './responses.js';

// Hashed once per file: the job caches its output, so the same bytes come back on every request.
const etags = new WeakMap<Uint8Array, string>();

/**
 * Serves `bytes` as video/mp4 the way a static file host does: one byte range at most, Range ignored
 * when malformed or multi-part (allowed by RFC 9110) or when If-Range names another version.
 */
export function serveFile(request: Request, bytes: Uint8Array): Response {
  const size = bytes.byteLength;
  const etag = etags.get(bytes) ?? `"${createHash('sha1').update(bytes).digest('hex').slice(0, 20)}"`;
  etags.set(bytes, etag);
  const headers: Record<string, string> = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', etag };
  const ifRange = request.headers.get('if-range');
  const range = ifRange === null || ifRange === etag ? parseRange(request.headers.get('range'), size) : undefined;
  if (range === 'unsatisfiable') {
    return errorResponse('range_not_satisfiable', `The file has ${size} bytes.`, { ...headers, 'content-range': `bytes */${size}` });
  }
  const [start, end] = range ?? [0, size - 1];
  const body = bytes.subarray(start, end + 1) as Uint8Array<ArrayBuffer>; // never a SharedArrayBuffer here
  headers['content-length'] = String(body.byteLength);
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  return new Response(request.method === 'HEAD' ? null : body, { status: range ? 206 : 200, headers });
}

/** [first, last] inclusive, 'unsatisfiable', or undefined to send the whole file. */
function parseRange(header: string | null, size: number): [number, number] | 'unsatisfiable' | undefined {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '') {
    if (last === '') return undefined;
    const suffix = Number(last);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (last !== '' && end < start) return undefined; // invalid, so ignored
  return start >= size ? 'unsatisfiable' : [start, Math.min(end, size - 1)];
}
