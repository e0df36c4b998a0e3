/** Header names whose values are credentials: never stored, logged or shown. */
const SENSITIVE = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-amz-security-token']);

export const REDACTED = '[redacted]';

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE.has(name.toLowerCase());
}

/**
 * Flatten response headers to strings, with credential-bearing values replaced, and the key removed from
 * every other value (an API or a proxy may echo it in any header).
 */
export function redactHeaders(headers: Record<string, string | string[] | undefined>, secret?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = isSensitiveHeader(key) ? REDACTED : scrub(Array.isArray(value) ? value.join(', ') : value, secret);
  }
  return out;
}

/** Remove every occurrence of `secret` from a string (for messages built from foreign text). */
export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join(REDACTED);
}

/** Remove `secret` from every string of a parsed JSON value (keys included), returning a copy. */
export function scrubValue(value: unknown, secret: string | undefined): unknown {
  if (typeof value === 'string') return scrub(value, secret);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key, secret), scrubValue(item, secret)]));
  }
  return value;
}
