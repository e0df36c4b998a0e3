import { isSensitiveHeader } from '../internal/redact.js';

/** Headers that describe one connection, never forwarded either way (RFC 9110 7.6.1), and the proxies' own. */
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
/** Who the browser is, as proxies in front of this one tell it: not the API's business. */
const FORWARDED = /^(forwarded|via|x-forwarded-.*|x-real-ip|x-client-ip|cf-connecting-ip|true-client-ip)$/;
/** Set by the fetch that sends to the API, for its own connection: `accept-encoding` too, as fetch decodes what it asked for. */
const SET_BY_FETCH = new Set(['host', 'accept-encoding', 'expect']);

/** The names a `Connection` header lists: hop-by-hop for this message too. */
function connectionNames(headers: Headers): Set<string> {
  return new Set((headers.get('connection') ?? '').split(',').map((name) => name.trim().toLowerCase()));
}

/**
 * What goes to the API from a browser's headers: none of its credentials (a key, cookie or authorization it sent),
 * hop-by-hop or forwarding headers; then the proxy's key.
 */
export function requestHeaders(browser: Headers, apiKey: string, drop: readonly string[] = []): Headers {
  const listed = connectionNames(browser);
  const out = new Headers();
  browser.forEach((value, name) => {
    if (isSensitiveHeader(name) || HOP_BY_HOP.has(name) || FORWARDED.test(name) || SET_BY_FETCH.has(name) || listed.has(name)) return;
    if (drop.includes(name)) return;
    out.set(name, value);
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
