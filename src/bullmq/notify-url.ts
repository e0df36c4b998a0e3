import { InvalidArgumentError } from 'avatar-video';

/** Longest notify URL taken: job data is stored in Redis for every try of a delivery. */
export const MAX_NOTIFY_URL_LENGTH = 2_048;

/**
 * What is wrong with `value` as a notify URL, or undefined: an absolute `http:` or `https:` URL, without a user or
 * password (they would be stored in Redis and logged), at most 2,048 characters. Whether its host is a private or
 * loopback address is decided when it is delivered to, from the address it resolves to then (`createDeliveryProcessor`).
 */
export function notifyUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be an absolute http: or https: URL, as a string';
  if (value.length > MAX_NOTIFY_URL_LENGTH) return `is longer than ${MAX_NOTIFY_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a URL: ${JSON.stringify(value.slice(0, 100))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http: or https:, not ${url.protocol}`;
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password: put a token in its path or query';
  return undefined;
}

/** `value` as a notify URL, normalized by WHATWG URL parsing. @throws InvalidArgumentError naming `field` and why. */
export function checkNotifyUrl(value: unknown, caller: string, field = 'notifyUrl'): string {
  const problem = notifyUrlProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(field, `${caller}: ${field} ${problem}`);
  return new URL(value as string).href;
}
