import { AvatarVideoError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';
import { shorten } from './shorten.js';

/**
 * The client's `baseURL`, checked: http(s), no credentials in it, plain http only to loopback unless allowed (the
 * key would cross the network in clear); without query or fragment, with a trailing slash.
 */
export function validateBaseURL(raw: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AvatarVideoError(`baseURL ${JSON.stringify(raw)} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AvatarVideoError(`baseURL must be http(s), got ${shorten(url.protocol)}`);
  }
  if (url.username || url.password) throw new AvatarVideoError('baseURL must not contain credentials; pass apiKey instead.');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    throw new AvatarVideoError(
      `baseURL ${shorten(url.origin)} uses plain http, which would send the API key in clear. Use https, or set allowInsecureHttp: true.`,
    );
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}
