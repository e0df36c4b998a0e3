import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries `Bearer <token>`. The two are compared as SHA-256 digests with
 * `timingSafeEqual`: equal lengths whatever was sent, so the time taken tells nothing of the token or its length.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
  if (sent === undefined) return false;
  return timingSafeEqual(digest(sent), digest(token));
}

const digest = (text: string) => createHash('sha256').update(text).digest();
