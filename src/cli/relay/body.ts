/** Largest request body the relay reads: a watch is two short strings. */
export const MAX_BODY_BYTES = 16 * 1024;

/** A request body: its text, or why none is taken (`too_large`: over `MAX_BODY_BYTES`, which is not read further). */
export type BodyRead = { text: string } | { problem: 'too_large' };

/** Read `request`'s body, at most `limit` bytes: a declared length over it is refused before a byte is read. */
export async function readBody(request: Request, limit = MAX_BODY_BYTES): Promise<BodyRead> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return { problem: 'too_large' };
  if (request.body === null) return { text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { problem: 'too_large' };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

/** The fields of `POST /watches`. */
export interface WatchRequest {
  video_id: string;
  notify_url: string;
}

const FIELDS = ['video_id', 'notify_url'];

/**
 * `text` as a watch request, or what is wrong with it (and the field at fault): JSON, an object, both fields strings,
 * no other field (a `notifyUrl` for `notify_url` would otherwise pass unnoticed). The values themselves are
 * `watchJob`'s to check, which holds the rules.
 */
export function parseWatchRequest(text: string): WatchRequest | { field?: string; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { message: 'the body is not JSON: send {"video_id": "...", "notify_url": "https://..."}' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { message: 'the body must be a JSON object: {"video_id": "...", "notify_url": "https://..."}' };
  }
  const unknown = Object.keys(value).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined)
    return { field: unknown, message: `unknown field ${JSON.stringify(unknown).slice(0, 80)}: the fields are video_id and notify_url` };
  for (const field of FIELDS) {
    const given = (value as Record<string, unknown>)[field];
    if (typeof given !== 'string' || given.trim() === '') return { field, message: `${field} is required, as a string` };
  }
  return value as WatchRequest;
}
