import { isSensitiveHeader } from '../internal/redact.js';

/**
 * The only headers of a browser's request the API is given: what its body is, which answer it takes, and its id for
 * the logs. An allow-list, so a header no one thought of (a method override, a cookie, a forwarding header) stays home.
 */
const TO_API = new Set(['accept', 'content-type', 'content-length', 'x-request-id']);
/** Headers that describe one connection, never forwarded (RFC 9110 7.6.1), and the proxies' own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The names a `Connection` header lists: hop-by-hop for this message too. */
function connectionNames(headers: Headers): Set<string> {
  return new Set((headers.get('connection') ?? '').split(',').map((name) => name.trim().toLowerCase()));
}

/**
 * What goes to the API from a browser's headers: those on the allow-list (but `drop`, and any its `Connection`
 * names), then the proxy's key.
 */
export function requestHeaders(browser: Headers, apiKey: string, drop: readonly string[] = []): Headers {
  const listed = connectionNames(browser);
  const out = new Headers();
  browser.forEach((value, name) => {
    if (TO_API.has(name) && !listed.has(name) && !drop.includes(name)) out.set(name, value);
  });
  out.set('x-api-key', apiKey);
  return out;
}

/**
 * What goes back to the browser from the API's headers: no cookie the API set, no hop-by-hop header, no header that
 * holds the key; and no `content-encoding`/`content-length`, as fetch hands over the body decoded.
 */
export function responseHeaders(api: Headers, apiKey: string): Headers {
  const listed = connectionNames(api);
  const out = new Headers();
  api.forEach((value, name) => {
    if (isSensitiveHeader(name) || HOP_BY_HOP.has(name) || listed.has(name) || value.includes(apiKey)) return;
    if (name === 'content-encoding' || name === 'content-length') return;
    out.set(name, value);
  });
  return out;
}
