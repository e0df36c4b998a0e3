import { FIELDS, MODELS, PARTS } from './rules.js';
import { randomId } from './state.js';

/**
 * Every error code the mock can answer with, its HTTP status and when it is used. The real service
 * does not publish its codes; these are the mock's choices, kept in one place so SDK
 * tests and users can rely on them. Request validation is answered without a code, the way the real
 * service's framework does it: see {@link MOCK_VALIDATION_ERRORS}.
 */
export const MOCK_ERROR_CODES = {
  missing_api_key: { status: 401, when: 'No x-api-key header on a /v1 request.' },
  invalid_api_key: { status: 401, when: 'The x-api-key header is not the key the mock accepts.' },
  invalid_multipart: { status: 400, when: 'POST /v1/videos body is not readable multipart/form-data.' },
  unknown_field: { status: 400, when: `A form field other than ${FIELDS.join(', ')}.` },
  duplicate_field: { status: 400, when: 'The same form field sent more than once.' },
  multiple_visual_references: { status: 400, when: 'Both image_reference and video_reference were sent.' },
  missing_visual_reference: { status: 400, when: 'Neither image_reference nor video_reference was sent.' },
  unsupported_format: {
    status: 400,
    when: `A part is not ${PARTS.audio_reference.label} (audio), ${PARTS.image_reference.label} (image) or ${PARTS.video_reference.label} (video) by its magic bytes.`,
  },
  unreadable_media: { status: 400, when: 'The bytes look like the right format but their duration or size cannot be read.' },
  preview_access_required: { status: 403, when: 'video_reference sent by a key without access to the gated preview.' },
  duration_out_of_range: {
    status: 422,
    when: `Audio outside ${PARTS.audio_reference.seconds?.join('..')} s or video reference outside ${PARTS.video_reference.seconds?.join('..')} s (inclusive).`,
  },
  invalid_after: { status: 400, when: 'List after is not the id of a known video.' },
  video_not_found: { status: 404, when: 'No video with that id.' },
  video_not_ready: { status: 409, when: 'Content requested for a video whose status is not COMPLETE.' },
  not_found: { status: 404, when: 'No such route (API) or file (CDN).' },
  credentials_forwarded: { status: 400, when: 'A CDN request carried x-api-key: the client leaked the key across origins.' },
  invalid_signature: { status: 403, when: 'A CDN URL without the sig query the content redirect issued.' },
  range_not_satisfiable: { status: 416, when: 'A Range starting past the end of the file.' },
  rate_limit_exceeded: {
    status: 429,
    when: 'Default body of failNext({ status: 429 }); a create while concurrencyLimit jobs are PROCESSING (with Retry-After); also the error.code of a job FAILED by rateLimitFailureRate. A create beyond createRate answers the service\'s own body instead, which names it as `type`: {"error": {"type": "rate_limit_exceeded", "message": "Rate limit exceeded."}}.',
  },
  internal_error: { status: 500, when: 'A handler threw, or default body of failNext({ status: 500 }).' },
  service_unavailable: { status: 503, when: 'Default body of failNext({ status: 503 }).' },
} as const satisfies Record<string, { status: number; when: string }>;

export type MockErrorCode = keyof typeof MOCK_ERROR_CODES;

export function errorResponse(code: MockErrorCode, message: string, headers?: HeadersInit): Response {
  return jsonResponse({ error: { code, message } }, MOCK_ERROR_CODES[code].status, headers);
}

/** A wait as a `Retry-After` in seconds, rounded up to the next 10 ms: a client that waits exactly this long gets in. */
export function retryAfterSeconds(waitMs: number): string {
  return (Math.ceil(Math.max(waitMs, 1) / 10) / 100).toFixed(2);
}

/**
 * The service's published answer to a create beyond its rate: its own body, the code as `type`; a `Retry-After`
 * (rounded up to the next 10 ms) only when `waitMs` is given.
 */
export function serviceRateLimit(waitMs: number | undefined): Response {
  const headers = waitMs === undefined ? undefined : { 'retry-after': retryAfterSeconds(waitMs) };
  return jsonResponse({ error: { type: 'rate_limit_exceeded', message: 'Rate limit exceeded.' } }, 429, headers);
}

/** Stops a check at its first problem: the front door (handlers.ts) answers with the thrown error response. */
export const reject = (...args: Parameters<typeof errorResponse>): never => {
  throw errorResponse(...args);
};

/** What a route answers for something it threw: a thrown Response as it is; anything else is thrown on. */
export function rescue(thrown: unknown): Response {
  if (thrown instanceof Response) return thrown;
  throw thrown;
}

/**
 * The request-validation problems the mock answers as FastAPI (which the real service runs on) does:
 * status 422, body `{"detail": [{type, loc, msg, input, ctx?}]}`, every problem of the request in one
 * answer, before any of the service's own checks. Keyed by `type`; `loc` is where it applies.
 */
export const MOCK_VALIDATION_ERRORS = {
  missing: { loc: 'body.audio_reference', when: 'No audio_reference part.' },
  value_error: { loc: 'body.<part>', when: 'A reference part was sent as a plain text field instead of a file.' },
  literal_error: {
    loc: 'body.model, query.order',
    when: `model is not ${MODELS.join(' or ')} (or is a file); list order is not asc or desc.`,
  },
  int_parsing: { loc: 'query.limit', when: 'List limit is not an integer.' },
  greater_than_equal: { loc: 'query.limit', when: 'List limit below 1.' },
  less_than_equal: { loc: 'query.limit', when: 'List limit above 100.' },
} as const satisfies Record<string, { loc: string; when: string }>;

/** One entry of a 422 body, as FastAPI writes it. */
export interface MockValidationProblem {
  type: keyof typeof MOCK_VALIDATION_ERRORS;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown> | undefined;
}

export function validationResponse(problems: MockValidationProblem[]): Response {
  return jsonResponse({ detail: problems }, 422);
}

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const all = new Headers(headers);
  all.set('content-type', 'application/json');
  return new Response(JSON.stringify(body), { status, headers: all });
}

/** The reply for a failNext() injection: its body, or a plausible error body for its status. */
export function injectedResponse(reply: { status: number; headers?: Record<string, string>; body?: unknown }): Response {
  if (typeof reply.body === 'string') {
    return new Response(reply.body, { status: reply.status, headers: { 'content-type': 'text/plain', ...reply.headers } });
  }
  const code =
    ({ 429: 'rate_limit_exceeded', 500: 'internal_error', 503: 'service_unavailable' } as Record<number, string>)[reply.status] ??
    'injected_error';
  const body = reply.body ?? { error: { code, message: `Injected ${reply.status} from the mock server.` } };
  return jsonResponse(body, reply.status, reply.headers);
}

/** `response` (built here, so its headers can change) with a fresh x-request-id. */
export function withRequestId(response: Response): Response {
  response.headers.set('x-request-id', randomId('req'));
  return response;
}
