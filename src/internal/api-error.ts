// An error answer as the SDK's typed `APIError`: its body parsed tolerantly, the key scrubbed from all of it.
import { type APIError, apiErrorClass, RateLimitError } from '../errors.js';
import { redactHeaders, scrub, scrubValue } from './redact.js';
import { parseRetryAfter } from './retry.js';
import { MAX_ERROR_BYTES, type RawResponse, readText, type SentResponse } from './transport.js';

const MAX_TEXT_BODY = 2048;

/** Parse an error body tolerantly: `{error:{code,message}}`, `{code,message}`, `{message}`, text or HTML. */
function parseErrorBody(text: string): { body: unknown; code: string | undefined; message: string | undefined } {
  let body: unknown = text.length > MAX_TEXT_BODY ? `${text.slice(0, MAX_TEXT_BODY)}…` : text;
  try {
    body = JSON.parse(text);
  } catch {
    const html = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    const plain = html ?? (/^\s*</.test(text) ? undefined : text.trim().slice(0, 200));
    return { body, code: undefined, message: plain || undefined };
  }
  const record = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const top = record(body);
  const inner = record(top?.error) ?? top;
  const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return {
    body,
    code: str(inner?.code) ?? str(inner?.type),
    message: str(inner?.message) ?? str(top?.error) ?? str(top?.message) ?? str(top?.detail),
  };
}

/** Pass a 1xx/2xx response through; turn any other into its typed APIError (reading the small error body). */
export async function throwForStatus(response: SentResponse, signal: AbortSignal | undefined, secret: string): Promise<SentResponse> {
  if (response.status < 300) return response;
  const { text } = await readText(response, signal, secret, MAX_ERROR_BYTES);
  throw makeAPIError(response.status, response.headers, text, secret);
}

/** Build the typed APIError for an error response. */
function makeAPIError(status: number, rawHeaders: RawResponse['headers'], text: string, secret: string): APIError {
  const parsed = parseErrorBody(scrub(text, secret));
  const { code, message } = parsed;
  const body = scrubValue(parsed.body, secret);
  const headers = redactHeaders(rawHeaders, secret);
  const requestId = headers['x-request-id'] ?? headers['request-id'];
  const ErrorClass = apiErrorClass(status);
  let summary = `${status}${code ? ` ${code}` : ''}: ${message ?? 'no error message in the response'}`;
  if (status === 403 && /preview|video_reference/i.test(`${code} ${message}`)) {
    summary += ' (video references are a gated preview: ask for access to use video_reference, or send an image_reference)';
  }
  if (requestId) summary += ` [request id ${requestId}]`;
  const error = new ErrorClass({ status, message: summary, code, requestId, headers, body });
  if (error instanceof RateLimitError) error.retryAfter = parseRetryAfter(headers['retry-after']);
  return error;
}
