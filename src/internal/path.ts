import { AvatarVideoError } from '../errors.js';

/**
 * Build a request path from literal parts and parameters: `apiPath\`/v1/videos/${id}/content\``.
 * Each parameter is percent-encoded as one segment; `.`, `..` and empty values are refused, so an id
 * can never walk to another endpoint.
 */
export function apiPath(strings: TemplateStringsArray, ...params: string[]): string {
  let out = strings[0] ?? '';
  for (let index = 0; index < params.length; index++) out += encodeSegment(params[index] as string) + (strings[index + 1] ?? '');
  return out;
}

export function encodeSegment(value: string): string {
  if (typeof value !== 'string') throw new AvatarVideoError(`Expected a string path parameter, got ${typeof value}.`);
  if (value === '' || value === '.' || value === '..') {
    throw new AvatarVideoError(`Invalid path parameter ${JSON.stringify(value)}: it must be a non-empty id.`);
  }
  return encodeURIComponent(value);
}
