/**
 * A verified body read as a `VideoEvent`. The signature says who sent it, not what it is: a sender's secret may sign
 * other kinds of events, and a body whose `id` is not its `webhook-id` would defeat de-duplication on either.
 */
import { WebhookVerificationError } from './errors.js';
import { VIDEO_EVENT_TYPES, type VideoEvent } from './event.js';

/** An ISO 8601 date as `Date.prototype.toISOString` writes it (the event's own), or with an offset. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The event `text` holds, sent as `webhookId`.
 * @throws WebhookVerificationError `not_an_event`, saying what is wrong and quoting nothing of the body.
 */
export function parseEvent(text: string, webhookId: string): VideoEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notAnEvent('it is not JSON');
  }
  const problem = eventProblem(parsed, webhookId);
  if (problem !== undefined) throw notAnEvent(problem);
  return parsed as VideoEvent;
}

/** What makes `value` no video event, or undefined for an event. */
function eventProblem(value: unknown, webhookId: string): string | undefined {
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.id !== webhookId) return 'its id is not the webhook-id header';
  if (!VIDEO_EVENT_TYPES.includes(value.type as VideoEvent['type'])) return `its type is not one of ${VIDEO_EVENT_TYPES.join(', ')}`;
  if (typeof value.timestamp !== 'string' || !ISO_DATE.test(value.timestamp) || Number.isNaN(Date.parse(value.timestamp))) {
    return 'its timestamp is not an ISO 8601 date';
  }
  if (!isObject(value.data) || typeof value.data.id !== 'string' || typeof value.data.status !== 'string') {
    return 'its data is not a video (an object with a string id and status)';
  }
  const reason = value.reason;
  if (reason !== undefined && (!isObject(reason) || typeof reason.code !== 'string' || typeof reason.message !== 'string')) {
    return 'its reason is not an object with a string code and message';
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function notAnEvent(problem: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'not_an_event',
    `The delivery's signature is valid but its body is not a video event: ${problem}. Something other than avatar-video signed it with this secret; answer it with a 4xx.`,
  );
}
