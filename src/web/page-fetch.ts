import type { FetchFunction } from '../internal/fetch-send.js';

/**
 * A page's `fetch` for the web client: a streamed request body gathered into a Blob first, as browsers send a stream
 * only over HTTP/2 (Chrome) or not at all (Firefox, Safari). The create's upload is then sent whole by the browser:
 * its progress reaches the total as the body is gathered.
 */
export function pageFetch(fetch: FetchFunction): FetchFunction {
  return async (input, init) => {
    const { body } = init;
    if (!(body instanceof ReadableStream)) return fetch(input, init);
    const { duplex: _half, ...rest } = init as RequestInit & { duplex?: string };
    return fetch(input, { ...rest, body: await new Response(body).blob() });
  };
}
