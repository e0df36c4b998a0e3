// An error answer as the SDK's typed `APIError`: its body parsed tolerantly, the key scrubbed from all of it.
import { APIError, type APIErrorDetail, apiErrorClass, RateLimitError } from '../errors.js';
import { header, type RawHeaders, requestId } from './headers.js';
import type { SentResponse } from './http-client.js';
import { redactHeaders, scrub, scrubValue } from './redact.js';
import { parseRetryAfter } from './retry.js';
import { shorten } from './shorten.js';

const MAX_TEXT_BODY = 2048;
/** Problems listed in the message; the rest are counted there, and all of them are on `details`. */
const MAX_LISTED_DETAILS = 10;
/** Longest problem in the message: a service echoing a large input must not make a large message. */
const MAX_DETAIL_CHARS = 200;

const record = (value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Parse an error body tolerantly: `{error:{code,message}}`, `{code,message}`, `{message}`, FastAPI's
 * `{detail}` (a string, or a list of `{loc,msg,type}`), text or HTML. The key is scrubbed from the text and
 * again from every parsed string (JSON may spell it with escapes the text scrub cannot see); the message and
 * details are read from the scrubbed value.
 */
function parseErrorBody(raw: string, secret: string, contentType: string | undefined) {
  const text = scrub(raw, secret);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    const plain = title ?? (/^\s*</.test(text) ? undefined : text.trim().slice(0, 200));
    const body = text.length > MAX_TEXT_BODY ? `${text.slice(0, MAX_TEXT_BODY)}…` : text;
    const html = /\btext\/html\b/i.test(contentType ?? '') || /^\s*<(!doctype html|html)\b/i.test(text);
    return { body, code: undefined, message: plain || undefined, details: [], html };
  }
  const body = scrubValue(parsed, secret);
  const top = record(body);
  const inner = record(top?.error) ?? top;
  const details = readDetails(top?.detail);
  return {
    body,
    code: str(inner?.code) ?? str(inner?.type),
    message: str(inner?.message) ?? str(top?.error) ?? str(top?.message) ?? str(top?.detail) ?? summarize(details),
    details,
    html: false,
  };
}

/** FastAPI's validation entries as `details`: `loc` joined with '.', numbers included (`body.items.0`). */
function readDetails(detail: unknown): APIErrorDetail[] {
  const items = Array.isArray(detail) ? detail : record(detail) ? [detail] : [];
  return items.flatMap((item): APIErrorDetail[] => {
    const entry = record(item);
    const loc = entry?.loc;
    const location = Array.isArray(loc)
      ? loc.filter((part) => typeof part === 'string' || typeof part === 'number').join('.')
      : (str(loc) ?? '');
    const message = str(entry?.msg) ?? str(entry?.message) ?? str(item) ?? '';
    if (location === '' && message === '') return [];
    const type = str(entry?.type);
    return [type === undefined ? { location, message } : { location, message, type }];
  });
}

/** `body.model: Input should be …; query.limit: …`, the first few problems, each clipped, then how many more. */
function summarize(details: APIErrorDetail[]): string | undefined {
  if (details.length === 0) return undefined;
  const listed = details.slice(0, MAX_LISTED_DETAILS).map(({ location, message }) => {
    const line = [location, message].filter((part) => part !== '').join(': ');
    return line.length > MAX_DETAIL_CHARS ? `${line.slice(0, MAX_DETAIL_CHARS)}…` : line;
  });
  const more = details.length - listed.length;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

/** The typed APIError of a streamed error answer from the API (its small body read), as `fileHostError` is a file host's. */
export async function streamedApiError(response: SentResponse, secret: string): Promise<APIError> {
  const { url } = response;
  return apiError(response.status, response.headers, await response.errorText(), secret, undefined, url.host, url.pathname);
}

/** What an endpoint adds to its error's message, from the answer's status and error body: advice the API's terms need. */
export type ErrorAdvice = (status: number, code: string | undefined, message: string | undefined) => string | undefined;

/**
 * The typed APIError for an error response; `advice` is the endpoint's (APIRequest.advice), `host` and `path` those of
 * the request (the path with the base URL's own), for the hints about a base URL that is not the API's.
 */
export function apiError(
  status: number,
  rawHeaders: RawHeaders,
  text: string,
  secret: string,
  advice?: ErrorAdvice,
  host?: string,
  path?: string,
): APIError {
  const { body, code, message, details, html } = parseErrorBody(text, secret, header(rawHeaders, 'content-type'));
  const headers = redactHeaders(rawHeaders, secret);
  const id = requestId(headers);
  const ErrorClass = apiErrorClass(status);
  const said = html ? notTheAPI(status, host, message) : (message ?? 'no error message in the response');
  let summary = `${status}${code ? ` ${code}` : ''}: ${said}`;
  const advised = [advice?.(status, code, message), status === 404 ? versionTwice(path) : undefined].filter(Boolean);
  if (advised.length > 0) summary += ` (${advised.join('; ')})`;
  if (id) summary += ` [request id ${id}]`;
  const error = new ErrorClass({ status, message: summary, code, requestId: id, headers, body, details, host });
  if (error instanceof RateLimitError) error.retryAfter = parseRetryAfter(headers['retry-after']);
  return error;
}

/**
 * An HTML page where the API answers JSON: a web server, or a gateway in front of the API, answered instead. A 4xx
 * points at `baseURL`; a 5xx may be a gateway in front of the right API failing, so it says both.
 */
function notTheAPI(status: number, host: string | undefined, title: string | undefined): string {
  const page = `an HTML page${title ? ` (${JSON.stringify(shorten(title))})` : ''}, not the API's JSON`;
  const where = host === undefined ? 'the server' : `the server at ${host}`;
  const why = status >= 500 ? 'a proxy or gateway in front of the API failed, or baseURL points elsewhere' : 'check baseURL';
  return `${where} answered ${page}: ${why}`;
}

/** The hint for a 404 at `/v1/v1/...`: a base URL ending in `/v1`, which the SDK adds to every path itself. */
function versionTwice(path: string | undefined): string | undefined {
  if (path === undefined || !/\/v1\/v1\//.test(path)) return undefined;
  return "baseURL ends in /v1, and the SDK adds /v1 itself: drop /v1 from baseURL, e.g. 'https://api.example.com'";
}

/** What a file host's answer to a signed address means: the error's `code` and the message's reason. */
const FILE_HOST_ANSWERS: Record<number, [code: string, status: string, reason: string]> = {
  403: ['file_forbidden', '403 Forbidden', 'the host refused it (expired, or not valid for this request)'],
  404: ['file_not_found', '404 Not Found', 'there is no file there'],
  410: ['file_expired', '410 Gone', 'the signed download address has expired'],
};

/**
 * The plain APIError (never a status subclass: the video itself is fine) for a file host's error `response`, its body
 * dropped unread (an error page of the host's, not the API's). The message names the host and the address without
 * its query, which holds the signature.
 */
export function fileHostError(response: SentResponse, secret: string): APIError {
  response.release();
  const { status, url } = response;
  const headers = redactHeaders(response.headers, secret);
  const id = requestId(headers);
  const [code, answered, reason] = FILE_HOST_ANSWERS[status] ?? [undefined, String(status), undefined];
  const address = `the signed address ${shorten(`${url.origin}${url.pathname}`)}`;
  const message = `The file host ${url.host} answered ${answered} for ${address}${reason ? `: ${reason}` : ''}.${id ? ` [request id ${id}]` : ''}`;
  return new APIError({ status, message, code, requestId: id, headers, body: undefined, origin: 'file-host', host: url.host });
}
