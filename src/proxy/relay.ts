import { REDACTED, scrub } from '../internal/redact.js';
import { redirectRefusal } from '../internal/redirect-rule.js';
import { errorAnswer, readText } from './answers.js';
import { responseHeaders } from './headers.js';

// The API's answers on their way to the browser: whatever their status, the key never passes (scrubbed from bodies,
// a header holding it dropped, an address holding it refused), and no address the SDK would not follow reaches a page.

/** The most of a content answer read to look for an address in it: a `{"url"}` is a few hundred bytes. */
const MAX_ADDRESS_ANSWER_BYTES = 1 << 16;

/**
 * The API's answer to `at` for the browser: its body streamed with the key scrubbed out as it passes (see
 * {@link scrubbedBody}); a `Location` that {@link checkedAddress} refuses is a 502, the answer unread.
 */
export async function relayed(answer: Response, at: URL, apiKey: string): Promise<Response> {
  const location = answer.headers.get('location');
  if (location !== null && !checkedAddress(location, at, apiKey)) {
    await answer.body?.cancel();
    return badAddress('a Location the proxy does not pass on');
  }
  return new Response(scrubbedBody(answer.body, apiKey), { status: answer.status, headers: responseHeaders(answer.headers, apiKey) });
}

/** Whether an answer is one the proxy reads whole to look for a `{"url"}` in it (JSON, text), rather than a file. */
export const readsAsText = (answer: Response) => /json|^\s*text\//i.test(answer.headers.get('content-type') ?? '');

/**
 * A 2xx content answer the API gave as JSON (or text) rather than a redirect: read (it is small) and, when it names
 * a `url`, that address is held to the redirect rule as a `Location` is, so no page is handed a `javascript:` one.
 */
export async function addressAnswer(answer: Response, at: URL, apiKey: string): Promise<Response> {
  const text = await readText(answer.body, MAX_ADDRESS_ANSWER_BYTES);
  if (text === undefined) return errorAnswer(502, 'bad_gateway', 'The API answered the content request with a body too large to read.');
  let url: unknown;
  try {
    url = (JSON.parse(text) as { url?: unknown } | null)?.url;
  } catch {
    // Not JSON: no address in it, passed on as text.
  }
  if (typeof url === 'string' && !checkedAddress(url, at, apiKey)) return badAddress('an address the proxy does not hand to a page');
  return new Response(scrub(text, apiKey), { status: answer.status, headers: responseHeaders(answer.headers, apiKey) });
}

/**
 * An address the API gave (a `Location`, a `{"url"}`), resolved against the request it answered: undefined when the
 * SDK would not follow it (not http(s), or down from https to http: internal/redirect-rule.ts) or when it holds the key.
 */
export function checkedAddress(address: string, at: URL, apiKey: string): URL | undefined {
  let next: URL;
  try {
    next = new URL(address, at);
  } catch {
    return undefined;
  }
  if (redirectRefusal(at, next) !== undefined) return undefined;
  return address.includes(apiKey) || next.href.includes(apiKey) ? undefined : next;
}

export function badAddress(what: string): Response {
  return errorAnswer(502, 'bad_gateway', `The API answered with ${what}.`);
}

/**
 * `body` as it streams, every occurrence of `secret` replaced by `[redacted]` (a key shorter than 4 characters is
 * left, as `scrub` leaves it). The last bytes of a chunk that could begin the secret wait for the next chunk, so a
 * key split across chunks is caught too; the body is never held whole, as a video's file may pass this way.
 */
export function scrubbedBody(body: ReadableStream<Uint8Array> | null, secret: string): ReadableStream<Uint8Array> | null {
  if (body === null || secret.length < 4) return body;
  const encoder = new TextEncoder();
  const [needle, replacement] = [encoder.encode(secret), encoder.encode(REDACTED)];
  let held = new Uint8Array(0);
  const scrubber = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const bytes = held.length === 0 ? chunk : joined(held, chunk);
      let from = 0;
      for (let at = indexOf(bytes, needle, from); at !== -1; at = indexOf(bytes, needle, from)) {
        if (at > from) controller.enqueue(bytes.subarray(from, at));
        controller.enqueue(replacement);
        from = at + needle.length;
      }
      const keep = Math.min(needle.length - 1, bytes.length - from);
      if (bytes.length - keep > from) controller.enqueue(bytes.subarray(from, bytes.length - keep));
      held = bytes.slice(bytes.length - keep);
    },
    flush(controller) {
      if (held.length > 0) controller.enqueue(held);
    },
  });
  return body.pipeThrough(scrubber);
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Where `needle` first occurs in `bytes` at or after `from`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  const last = bytes.length - needle.length;
  for (let at = bytes.indexOf(needle[0] as number, from); at !== -1 && at <= last; at = bytes.indexOf(needle[0] as number, at + 1)) {
    let matched = 1;
    while (matched < needle.length && bytes[at + matched] === needle[matched]) matched++;
    if (matched === needle.length) return at;
  }
  return -1;
}
