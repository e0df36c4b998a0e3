import type { Dispatcher } from 'undici';
import { AvatarVideoError } from '../errors.js';
import type { Answer } from './api-promise.js';
import { header, safeHeaders } from './headers.js';
import { type SentResponse, send } from './send.js';

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;

export interface FollowOptions {
  dispatcher: Dispatcher;
  /** Headers for the first hop, credentials included. */
  headers: Record<string, string>;
  timeout: number;
  signal?: AbortSignal | undefined;
  secret: string;
}

/**
 * GET `start`, following redirects by hand: fetch and undici's interceptor would forward `x-api-key` to
 * whatever origin the redirect names. Here credential headers are dropped as soon as the origin changes
 * (and stay dropped), https never downgrades to http, and at most {@link MAX_REDIRECTS} hops are taken.
 * Returns the final response with its body unread.
 */
export async function followRedirects(start: URL, options: FollowOptions): Promise<SentResponse> {
  let url = start;
  let headers = { ...options.headers };
  for (let hop = 0; ; hop++) {
    const response = await get(url, headers, options);
    const next = await redirectTarget(response, url, hop);
    if (!next) return response;
    if (next.origin !== url.origin) headers = safeHeaders(headers);
    url = next;
  }
}

/**
 * Follow the redirects of `start` while they stay on its origin, and return the first address on another
 * origin without sending anything there (a signed file address may be good for one download only), with the
 * redirect that named it. A chain that ends on the start's origin hands its last response to `onFinal`.
 */
export async function resolveRedirects(
  start: URL,
  options: FollowOptions,
  onFinal: (response: SentResponse) => Promise<never>,
): Promise<Answer<string>> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await get(url, options.headers, options);
    const next = await redirectTarget(response, url, hop);
    if (!next) return onFinal(response);
    if (next.origin !== start.origin) return { data: next.href, status: response.status, headers: response.headers };
    url = next;
  }
}

function get(url: URL, headers: Record<string, string>, options: FollowOptions): Promise<SentResponse> {
  return send(
    options.dispatcher,
    // A fresh copy per hop: a dispatcher may add to it (ProxyAgent sets `host`, which must not follow us to the next origin).
    {
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'GET',
      headers: { ...headers },
      timeout: options.timeout,
      signal: options.signal,
    },
    options.secret,
  );
}

/** The checked address a redirect response points to (its body released), or undefined for any other response. */
async function redirectTarget(response: SentResponse, url: URL, hop: number): Promise<URL | undefined> {
  if (!REDIRECT_STATUS.has(response.status)) return undefined;
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
  if (next.protocol !== 'https:' && next.protocol !== 'http:') {
    throw new AvatarVideoError(`Refusing to follow a redirect to a ${next.protocol} URL.`);
  }
  if (url.protocol === 'https:' && next.protocol === 'http:') {
    throw new AvatarVideoError(`Refusing to follow a redirect from https to http (${next.origin}).`);
  }
  return next;
}
