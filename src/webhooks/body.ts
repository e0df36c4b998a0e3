/**
 * A delivery's raw body as the text it was signed as. The signature covers the exact bytes sent, so the body must
 * reach the check as received: text or bytes, never JSON parsed and serialised again (which can reorder or re-space it).
 */
import { WebhookVerificationError } from './errors.js';

/** A request body as received: its text (`await request.text()`) or its bytes (`express.raw`'s Buffer, an ArrayBuffer). */
export type RawBody = string | Uint8Array | ArrayBuffer;

// Fatal, so that bytes that are not UTF-8 are refused rather than verified as replacement characters; a BOM is kept,
// so the text is exactly the bytes.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as text.
 * @throws WebhookVerificationError `bad_body` for anything but text or bytes (a parsed object), or bytes not UTF-8.
 */
export function bodyText(rawBody: RawBody): string {
  if (typeof rawBody === 'string') return rawBody;
  if (!ArrayBuffer.isView(rawBody) && !isArrayBuffer(rawBody)) {
    throw new WebhookVerificationError(
      'bad_body',
      `The body is ${describe(rawBody)}, not the raw body: the signature covers the bytes as sent, which a parsed object has lost. Pass the request's text or bytes, read before any JSON parser (await request.text(), express.raw({ type: 'application/json' })).`,
    );
  }
  try {
    return decoder.decode(rawBody);
  } catch {
    throw new WebhookVerificationError('bad_body', 'The body is not UTF-8 text, so it is not a JSON event: refuse it.');
  }
}

/** An ArrayBuffer of any realm (a Worker's, a vm context's), where `instanceof ArrayBuffer` would say no. */
function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return Object.prototype.toString.call(value) === '[object ArrayBuffer]';
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
