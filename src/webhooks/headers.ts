/**
 * The three Standard Webhooks headers of a delivery, from a web `Headers` (fetch, Next.js, Hono, Workers) or a plain
 * record (Node's `IncomingHttpHeaders`, Express's `req.headers`), by name whatever its case.
 */
import { WebhookVerificationError } from './errors.js';

/** Request headers as a receiver holds them: a web `Headers`, or a record of names to values as Node's are. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** The headers `Webhook.verify` of `standardwebhooks` reads, each one string. */
export interface StandardHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * The three headers of `headers`. A name given several times (an array, or keys that differ only in case) is one
 * value joined with `, `, as HTTP combines a repeated field and as `Headers.get` answers: every kind of headers gives
 * the same verdict.
 * @throws WebhookVerificationError `missing_header`, naming each header absent.
 */
export function standardHeaders(headers: WebhookHeaders): StandardHeaders {
  const read = isWebHeaders(headers) ? (name: string) => headers.get(name) ?? undefined : recordReader(headers);
  const found: Partial<StandardHeaders> = {};
  const missing: string[] = [];
  for (const name of NAMES) {
    const value = read(name);
    if (value === undefined || value === '') missing.push(name);
    else found[name] = value;
  }
  if (missing.length > 0) {
    throw new WebhookVerificationError(
      'missing_header',
      `The request has no ${missing.join(', ')} header: it was not sent as a Standard Webhooks delivery, or something on its way dropped the headers. Pass the request's headers as received.`,
    );
  }
  return found as StandardHeaders;
}

/** A `Headers` of any realm (undici's, a Worker's, a polyfill's): a record of header values has no `get` function. */
function isWebHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof (headers as { get?: unknown }).get === 'function';
}

/** Looks a name up in a record case-insensitively, joining repeated values. */
function recordReader(headers: Record<string, string | readonly string[] | undefined>): (name: string) => string | undefined {
  if (typeof headers !== 'object' || headers === null) {
    throw new WebhookVerificationError(
      'missing_header',
      'The headers are not a Headers or a record of header values: pass the request’s headers (request.headers, req.headers).',
    );
  }
  return (name) => {
    const values = Object.keys(headers)
      .filter((key) => key.toLowerCase() === name)
      .flatMap((key) => headers[key] ?? []);
    return values.length === 0 ? undefined : values.join(', ');
  };
}
