/**
 * A `fetch` for the client's `fetch` option that reports upload progress: a browser's fetch reports none, so a
 * request with a body goes through XMLHttpRequest (whose `upload` does), and every other request through fetch.
 */

/** Headers a page may not set: XMLHttpRequest computes them itself and logs an error for each one set. */
const SET_BY_THE_BROWSER = new Set(['content-length', 'connection', 'host', 'keep-alive', 'transfer-encoding']);

export function fetchWithUploadProgress(onUpload: (sent: number, total: number) => void): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'GET' || request.method === 'HEAD') return fetch(request);
    // Whole in memory first (the files already are): XMLHttpRequest takes no stream.
    const body = await request.blob();
    return send(request, body, onUpload);
  };
}

function send(request: Request, body: Blob, onUpload: (sent: number, total: number) => void): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    xhr.responseType = 'blob';
    request.headers.forEach((value, name) => {
      if (!SET_BY_THE_BROWSER.has(name)) xhr.setRequestHeader(name, value);
    });
    xhr.upload.onprogress = (event) => onUpload(event.loaded, event.lengthComputable ? event.total : body.size);
    xhr.onload = () => resolve(toResponse(xhr));
    // The errors fetch itself gives, so the client maps them as it maps fetch's.
    xhr.onerror = () => reject(new TypeError('Failed to fetch'));
    xhr.onabort = () => reject(request.signal.reason ?? new DOMException('The request was aborted.', 'AbortError'));
    request.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

function toResponse(xhr: XMLHttpRequest): Response {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  // A null-body status (204, 304) takes no body, not even an empty one.
  const body = [101, 204, 205, 304].includes(xhr.status) ? null : (xhr.response as Blob);
  return new Response(body, { status: xhr.status, statusText: xhr.statusText, headers });
}
