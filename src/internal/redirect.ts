import { AvatarVideoError, type ErrorOrigin } from '../errors.js';
import { header, safeHeaders } from './headers.js';
import type { HttpClient, SentResponse } from './http-client.js';
import { isRedirect, MAX_REDIRECTS, redirectRefusal } from './redirect-rule.js';

/** One hop's request, wrapped by the caller (traced, its error answer thrown): `site` says whose server `url` is. */
export type Hop = (url: URL, site: ErrorOrigin, send: () => Promise<SentResponse>) => Promise<SentResponse>;

export interface FollowOptions {
  http: HttpClient;
  /** Headers for the first hop, credentials included. */
  headers: Record<string, string>;
  timeout: number;
  /** Milliseconds a body may send nothing before it is given up; `timeout` when unset. */
  idleTimeout?: number | undefined;
  signal?: AbortSignal | undefined;
  /** The API's origin: any other is a file host's. */
  apiOrigin: string;
  hop: Hop;
}

/**
 * GET `start`, following redirects by hand (fetch with `redirect: 'manual'`): fetch and undici's interceptor would forward `x-api-key` to
 * whatever origin the redirect names. Here credential headers are dropped as soon as the origin changes
 * (and stay dropped), https never downgrades to http, and at most {@link MAX_REDIRECTS} hops are taken.
 * Returns the final response with its body unread; with `stopOffOrigin`, the redirect to the first address on
 * another origin instead, with that address unrequested (a signed file address may be good for one download only).
 */
export async function followRedirects(
  start: URL,
  options: FollowOptions,
  stopOffOrigin = false,
): Promise<{ response: SentResponse; offOrigin?: URL }> {
  let url = start;
  let headers = options.headers;
  for (let hop = 0; ; hop++) {
    const { http, timeout, idleTimeout, signal } = options;
    const site = url.origin === options.apiOrigin ? 'api' : 'file-host';
    // A fresh copy of the headers per hop: an undici dispatcher may add to them (ProxyAgent sets `host`, which must not
    // follow us to the next origin).
    const attempt = {
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'GET',
      headers: { ...headers },
      timeout,
      idleTimeout,
      signal,
      site,
    } as const;
    const response = await options.hop(url, site, () => http.send(attempt));
    const next = await redirectTarget(response, url, hop);
    if (!next) return { response };
    if (next.origin !== url.origin) {
      if (stopOffOrigin) return { response, offOrigin: next };
      headers = safeHeaders(headers);
    }
    url = next;
  }
}

/** The checked address a redirect response points to (its body released), or undefined for any other response. */
async function redirectTarget(response: SentResponse, url: URL, hop: number): Promise<URL | undefined> {
  if (!isRedirect(response.status)) return undefined;
  response.release();
  const location = header(response.headers, 'location');
  if (!location) throw new AvatarVideoError(`Redirect ${response.status} from ${url.pathname} has no Location header.`);
  if (hop + 1 > MAX_REDIRECTS) throw new AvatarVideoError(`Too many redirects (more than ${MAX_REDIRECTS}) while downloading.`);
  let next: URL;
  try {
    next = new URL(location, url);
  } catch (error) {
    throw new AvatarVideoError(`Redirect ${response.status} from ${url.pathname} has a malformed Location header.`, { cause: error });
  }
  const refusal = redirectRefusal(url, next);
  if (refusal) throw new AvatarVideoError(`Refusing to follow a redirect ${refusal}.`);
  return next;
}
