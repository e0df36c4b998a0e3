import { isSensitiveHeader } from './redact.js';

/** Response headers as undici gives them: lowercased names, a list for a repeated header. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** One header's value (the first, if repeated). */
export function header(headers: RawHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The service's id for one request, which its support can look up. */
export function requestId(headers: RawHeaders): string | undefined {
  return header(headers, 'x-request-id') ?? header(headers, 'request-id');
}

/** Headers without credential names (the key comes from the client only, and never leaves the API's origin), lowercased. */
export function safeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (!isSensitiveHeader(name)) out[name.toLowerCase()] = value;
  }
  return out;
}
