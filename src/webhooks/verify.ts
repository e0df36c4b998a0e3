/**
 * Checking a delivery as the Standard Webhooks specification says, with its reference implementation: the
 * signature, its 5-minute tolerance and the timing-safe compare are `standardwebhooks`' own, none of ours. What this
 * adds is the input (raw body, any kind of headers), the reasons, and the check that the body is a video event.
 */
import { WebhookVerificationError as StandardVerificationError, Webhook } from 'standardwebhooks';
import { bodyText, type RawBody } from './body.js';
import { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
import type { VideoEvent } from './event.js';
import { parseEvent } from './event-body.js';
import { type StandardHeaders, standardHeaders, type WebhookHeaders } from './headers.js';

/** The tolerance `standardwebhooks` applies either side of this host's clock, in seconds: for the messages. */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * The event a delivery carries, once its signature, its timestamp and its body have been checked. Give it the body
 * exactly as received, before any JSON parser, and the signing secret (`whsec_...`):
 *
 *   const event = verifyWebhook(await request.text(), request.headers, process.env.AVATAR_VIDEO_WEBHOOK_SECRET);
 *
 * A delivery may come more than once (every retry of one event has the same `event.id`, its `webhook-id`): act once
 * per id. Answer 2xx when it is handled; anything else, and the sender tries again later.
 * @throws WebhookVerificationError naming its `reason`: then trust nothing in the delivery, and answer it with a 4xx.
 */
export function verifyWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string): VideoEvent {
  // The secret first: a receiver set up wrong hears so on every request, whatever the request.
  const webhook = webhookOf(secret);
  const text = bodyText(rawBody);
  const standard = standardHeaders(headers);
  try {
    webhook.verify(text, standard, { jsonParse: false });
  } catch (error) {
    throw refusal(error, standard);
  }
  return parseEvent(text, standard['webhook-id']);
}

/** The package's verifier for `secret`, refusing a secret it cannot read without quoting it. */
function webhookOf(secret: string): Webhook {
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new WebhookVerificationError(
      'bad_secret',
      `The signing secret is ${describeSecret(secret)}: pass the secret the sender signs with (whsec_ and base64), from your settings or environment.`,
    );
  }
  try {
    return new Webhook(secret);
  } catch {
    throw new WebhookVerificationError(
      'bad_secret',
      'The signing secret is not a Standard Webhooks secret (whsec_ and base64, as the sender was given): check that it is copied whole, with no quotes or spaces.',
    );
  }
}

/** What is wrong with a secret that is no string or an empty one, without its value. */
function describeSecret(secret: unknown): string {
  if (typeof secret === 'string') return 'empty';
  if (secret === undefined) return 'undefined (is its environment variable set?)';
  return secret === null ? 'null' : `a ${typeof secret}`;
}

/**
 * `standardwebhooks`' refusal as ours, by its message; a message this version does not know is a bad signature.
 * Anything else it throws is a fault, not a verdict on the delivery, and goes on as it is.
 */
function refusal(error: unknown, headers: StandardHeaders): unknown {
  if (!(error instanceof StandardVerificationError)) return error;
  const reason = REASONS.get(error.message) ?? 'bad_signature';
  return new WebhookVerificationError(reason, explain(reason, headers, error.message));
}

const REASONS = new Map<string, WebhookVerificationReason>([
  ['Missing required headers', 'missing_header'],
  ['Invalid Signature Headers', 'bad_timestamp'],
  ['Message timestamp too old', 'stale_timestamp'],
  ['Message timestamp too new', 'future_timestamp'],
  ['No matching signature found', 'bad_signature'],
]);

function explain(reason: WebhookVerificationReason, headers: StandardHeaders, message: string): string {
  const skew = Math.floor(Date.now() / 1000) - Number.parseInt(headers['webhook-timestamp'], 10);
  switch (reason) {
    case 'stale_timestamp':
      return `The delivery was signed ${skew} s ago, past the ${TOLERANCE_SECONDS} s tolerance: a replay, or this host's clock is behind. Answer it with a 4xx: the sender signs each retry anew.`;
    case 'future_timestamp':
      return `The delivery's webhook-timestamp is ${-skew} s ahead of this host's clock, past the ${TOLERANCE_SECONDS} s tolerance: this host's clock or the sender's is wrong.`;
    case 'bad_timestamp':
      return 'The webhook-timestamp header is not a number of seconds since the epoch: the request was not sent as a Standard Webhooks delivery.';
    case 'missing_header':
      return 'The request lacks a webhook-id, webhook-timestamp or webhook-signature header. Pass the request’s headers as received.';
    default:
      return `No signature in webhook-signature matches the body under this secret${REASONS.has(message) ? '' : ` (${message})`}: the secret is not the sender's, or the body was changed on its way (parsed and serialised again, re-encoded). Pass the raw body, as received.`;
  }
}
