/**
 * Signing an event as the Standard Webhooks specification says, with its reference implementation
 * (`standardwebhooks`): no HMAC or encoding of our own. Used where events are sent (avatar-video/bullmq's delivery
 * processor) and by avatar-video/testing's `signedEvent`.
 */
import { Webhook } from 'standardwebhooks';
import type { VideoEvent } from './event.js';

/** The headers of one signed delivery. */
export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  /** Seconds since the epoch, when this delivery was signed. */
  'webhook-timestamp': string;
  /** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
  'webhook-signature': string;
}

/** A signed delivery: the exact body to send and its headers. */
export interface SignedDelivery {
  body: string;
  headers: SignedHeaders;
}

/**
 * Signs `event` with `secret` (`whsec_` and base64, as Standard Webhooks' secrets are) at `at`. Each try of a
 * delivery is signed anew, with the time of the try, so that a retry hours later is inside the receiver's 5-minute
 * tolerance; the id stays the event's.
 * @throws Error from `standardwebhooks` for a secret that is not base64 or is empty.
 */
export function signEvent(event: VideoEvent, secret: string, at: Date = new Date()): SignedDelivery {
  const body = JSON.stringify(event);
  const seconds = Math.floor(at.getTime() / 1000);
  const signature = new Webhook(secret).sign(event.id, new Date(seconds * 1000), body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature,
    },
  };
}
