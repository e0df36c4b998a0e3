/** Header names whose values are credentials: never stored, logged or shown. */
const SENSITIVE = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-amz-security-token']);

export const REDACTED = '[redacted]';

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE.has(name.toLowerCase());
}

/** Flatten response headers to strings, with credential-bearing values replaced. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = isSensitiveHeader(key) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Remove every occurrence of `secret` from a string (for messages built from foreign text). */
export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join(REDACTED);
}
