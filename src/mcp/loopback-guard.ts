/**
 * The DNS-rebinding check of `avatar-video mcp --http`: which requests the loopback server answers, decided from the
 * Host and Origin headers alone, as a pure function.
 */

/** Host names that can only mean this machine (the URL API writes IPv6 with its brackets). */
const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A request the server refuses with 403, and why in one line; undefined when it may be answered. */
export type LoopbackRefusal = { reason: string } | undefined;

/**
 * Refuse a request whose Host is not a loopback name (a rebound DNS name such as `evil.example` pointing at
 * 127.0.0.1 arrives with its own name as Host), or whose Origin is a page from anywhere but this machine. A request
 * without Origin is from a program, not a browser page, so it passes.
 */
export function checkLoopbackRequest(headers: { host?: string | undefined; origin?: string | undefined }): LoopbackRefusal {
  if (!headers.host) return { reason: 'no Host header' };
  const host = hostnameOf(`http://${headers.host}`);
  if (host === undefined || !LOOPBACK_HOSTNAMES.has(host)) {
    return { reason: `Host ${JSON.stringify(headers.host)} is not a loopback name (localhost, 127.0.0.1, [::1])` };
  }
  if (headers.origin === undefined) return undefined;
  const origin = originHostname(headers.origin);
  if (origin === undefined || !LOOPBACK_HOSTNAMES.has(origin)) {
    return { reason: `Origin ${JSON.stringify(headers.origin)} is not a page on this machine` };
  }
  return undefined;
}

/** The hostname of an http(s) origin; undefined for `null`, file:, other schemes or anything unparsable. */
function originHostname(origin: string): string | undefined {
  if (!/^https?:\/\//i.test(origin)) return undefined;
  return hostnameOf(origin);
}

function hostnameOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    // A Host with a path, user or query is not a Host header a browser or client sends.
    if (parsed.pathname !== '/' || parsed.username || parsed.search || parsed.hash) return undefined;
    return parsed.hostname;
  } catch {
    return undefined;
  }
}
