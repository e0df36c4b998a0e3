import { isLoopbackHost } from '../internal/loopback.js';
import type { Problem } from './usage-error.js';

/**
 * The mistakes people make with a service address, said with the fix: no scheme (suggest https://),
 * and plain http to another machine (say how to allow it). Other malformed addresses are left to the
 * SDK's own check. `source` is where the address came from: `--base-url` or `AVATAR_VIDEO_BASE_URL`.
 */
export function baseUrlProblem(raw: string, source: string, allowInsecureHttp: boolean): Problem | undefined {
  if (!raw.includes('://')) {
    return {
      code: 'base_url_scheme',
      message: `${source} ${raw} has no scheme: use https://${raw.replace(/^\/+/, '')} (or http:// for a service on this machine)`,
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || allowInsecureHttp || isLoopbackHost(url.hostname)) return undefined;
  return {
    code: 'insecure_base_url',
    message:
      `${source} ${url.origin} uses plain http, which would send the API key in clear over the network: use https. ` +
      'On a network you trust, allow it with --allow-insecure-http or AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1.',
  };
}
