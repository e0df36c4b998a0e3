// Which redirects may be followed: one rule for the SDK's own follower (redirect.ts) and avatar-video/proxy's. A leaf
// module with no imports, so the proxy can take it without the rest of the HTTP path.

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** The most redirects one request follows. */
export const MAX_REDIRECTS = 5;

/** Whether an answer is a redirect to follow. */
export const isRedirect = (status: number) => REDIRECT_STATUS.has(status);

/**
 * Why a redirect from `from` to `next` is not followed (`to a data: URL`, `from https to http (...)`), or undefined
 * when it may be: only http(s), and never down from https to http.
 */
export function redirectRefusal(from: URL, next: URL): string | undefined {
  if (next.protocol !== 'https:' && next.protocol !== 'http:') return `to a ${next.protocol} URL`;
  if (from.protocol === 'https:' && next.protocol === 'http:') return `from https to http (${next.origin})`;
  return undefined;
}
