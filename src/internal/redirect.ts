import type { Dispatcher } from 'undici';
import { AvatarVideoError } from '../errors.js';
import { isSensitiveHeader } from './redact.js';
import { header, type SentResponse, send } from './transport.js';

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

export interface FollowToHostOptions<T> extends FollowOptions {
  /**
   * Tried first for each hop to an origin other than the start's (the file host). Resolves with the
   * final response read another way, or undefined to send the hop through the dispatcher after all.
   */
  toOtherOrigin: (url: URL, headers: Record<string, string>) => Promise<T | undefined>;
}

/**
 * GET `start`, following redirects by hand: fetch and undici's interceptor would forward `x-api-key` to
 * whatever origin the redirect names. Here credential headers are dropped as soon as the origin changes
 * (and stay dropped), https never downgrades to http, and at most {@link MAX_REDIRECTS} hops are taken.
 * Returns the final response with its body unread.
 */
export async function followRedirects(start: URL, options: FollowOptions): Promise<SentResponse>;
export async function followRedirects<T>(start: URL, options: FollowToHostOptions<T>): Promise<SentResponse | T>;
export async function followRedirects<T>(start: URL, options: FollowOptions & Partial<FollowToHostOptions<T>>): Promise<SentResponse | T> {
  let url = start;
  let headers = { ...options.headers };
  for (let hop = 0; ; hop++) {
    const other = url.origin !== start.origin ? await options.toOtherOrigin?.(url, headers) : undefined;
    if (other !== undefined) return other;
    const response = await send(
      options.dispatcher,
      { url, method: 'GET', headers, timeout: options.timeout, signal: options.signal, stream: true },
      options.secret,
    );
    if (!REDIRECT_STATUS.has(response.status)) return response;
    await response.body.dump().catch(() => {});
    response.done();
    const location = header(response.headers, 'location');
    if (!location) throw new AvatarVideoError(`Redirect ${response.status} from ${url.pathname} has no Location header.`);
    if (hop + 1 > MAX_REDIRECTS) throw new AvatarVideoError(`Too many redirects (more than ${MAX_REDIRECTS}) while downloading.`);
    const next = new URL(location, url);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw new AvatarVideoError(`Refusing to follow a redirect to a ${next.protocol} URL.`);
    }
    if (url.protocol === 'https:' && next.protocol === 'http:') {
      throw new AvatarVideoError(`Refusing to follow a redirect from https to http (${next.origin}).`);
    }
    if (next.origin !== url.origin) headers = withoutCredentials(headers);
    url = next;
  }
}

export function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isSensitiveHeader(name)));
}
