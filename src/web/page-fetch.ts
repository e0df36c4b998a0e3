import type { FetchFunction } from '../internal/fetch-send.js';

/**
 * A page's `fetch` for the web client: no `x-api-key` header (the transport names one; a page has none to send, and an
 * empty one would cost every request a CORS preflight), and a streamed request body gathered into a Blob first, as
 * browsers send a stream only over HTTP/2 (Chrome) or not at all (Firefox, Safari). The create's upload is then sent
 * whole by the browser: its progress reaches the total as the body is gathered.
 */
export function pageFetch(fetch: FetchFunction): FetchFunction {
  return async (input, init) => {
    const { 'x-api-key': _none, ...headers } = (init.headers ?? {}) as Record<string, string>;
    const { body } = init;
    if (!(body instanceof ReadableStream)) return fetch(input, { ...init, headers });
    const { duplex: _half, ...rest } = init as RequestInit & { duplex?: string };
    return fetch(input, { ...rest, headers, body: await new Response(body).blob() });
  };
}
