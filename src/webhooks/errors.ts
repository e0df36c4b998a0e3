import { AvatarVideoError } from '../errors.js';
import { brandClasses } from '../internal/brand.js';

/**
 * Why a delivery was refused:
 *
 * - `missing_header`: no `webhook-id`, `webhook-timestamp` or `webhook-signature` header.
 * - `bad_signature`: no signature of `webhook-signature` is the body's under this secret (another secret, or a body
 *   changed on its way: re-encoded, parsed and serialised again).
 * - `stale_timestamp`, `future_timestamp`: `webhook-timestamp` is more than 5 minutes before or after this host's clock.
 * - `bad_timestamp`: `webhook-timestamp` is not a number of seconds.
 * - `not_an_event`: the signature holds, but the body is not a video event (not JSON, its `id` not the `webhook-id`, an
 *   unknown `type`, no video in `data`).
 * - `bad_secret`: the secret is not a Standard Webhooks secret (`whsec_` and base64), or is empty.
 * - `bad_body`: the body is neither text nor bytes (a parsed object), or its bytes are not UTF-8.
 */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'bad_signature'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'bad_timestamp'
  | 'not_an_event'
  | 'bad_secret'
  | 'bad_body';

/**
 * Thrown by `verifyWebhook` when a delivery cannot be trusted or is not a video event: answer it with a 4xx (or 401),
 * and act on nothing in it. The message says why and what to change; it never holds the secret or the body.
 */
export class WebhookVerificationError extends AvatarVideoError {
  override name = 'WebhookVerificationError';
  /** Why the delivery was refused, for a program to branch on. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

// Branded as the main entry's classes are, so that `instanceof` holds across this entry's ESM and CommonJS builds.
brandClasses({ WebhookVerificationError });
