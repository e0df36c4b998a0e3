import { errorResponse, jsonResponse, type MockValidationProblem, validationResponse } from './responses.js';
import type { MockState } from './state.js';

function problem(name: string, msg: string, type: MockValidationProblem['type'], input: string | null) {
  return { type, loc: ['query', name], msg, input };
}

/** `limit`: 20 when absent, else a whole number from 1 to 100, in FastAPI's words when it is not. */
function readLimit(raw: string | null): number | MockValidationProblem {
  if (raw === null) return 20;
  if (!/^[+-]?\d+$/.test(raw.trim()))
    return problem('limit', 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing', raw);
  const limit = Number(raw);
  if (limit < 1) return problem('limit', 'Input should be greater than or equal to 1', 'greater_than_equal', raw);
  if (limit > 100) return problem('limit', 'Input should be less than or equal to 100', 'less_than_equal', raw);
  return limit;
}

/** `order`: desc (newest first) when absent, else asc or desc. */
function readOrder(raw: string | null): 'asc' | 'desc' | MockValidationProblem {
  const order = raw ?? 'desc';
  return order === 'asc' || order === 'desc' ? order : problem('order', "Input should be 'asc' or 'desc'", 'literal_error', raw);
}

/**
 * GET /v1/videos, as the service's OpenAPI description has it: a bare array; `order` desc (newest first,
 * the default) or asc; `after` strictly after that video in the order asked; `limit` 1..100, default 20.
 * A bad query is FastAPI's 422 `{ detail: [{ loc, msg, type }] }`, every problem listed.
 */
export function listVideos(state: MockState, url: URL): Response {
  const limit = readLimit(url.searchParams.get('limit'));
  const order = readOrder(url.searchParams.get('order'));
  if (typeof limit !== 'number' || typeof order !== 'string') {
    return validationResponse([limit, order].filter((p): p is MockValidationProblem => typeof p === 'object'));
  }
  const newestFirst = state.listVideos();
  const all = order === 'desc' ? newestFirst : newestFirst.reverse();
  const after = url.searchParams.get('after');
  const start = after === null ? 0 : all.findIndex((video) => video.id === after) + 1;
  // The service's answer to an unknown id is not documented; the mock says so plainly rather than guess.
  if (after !== null && start === 0) return errorResponse('invalid_after', `after must be the id of an existing video; '${after}' is not.`);
  return jsonResponse(all.slice(start, start + limit));
}
