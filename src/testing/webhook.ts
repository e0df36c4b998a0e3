/**
 * A signed delivery for a receiver's own tests: the body and headers `avatar-video/bullmq`'s delivery processor would
 * send for `video`, made by the same code that makes and signs its events, so a handler is tested with no Redis,
 * queue or worker running.
 */
import type { Video } from '../schemas.js';
import { type VideoEvent, type VideoEventType, videoEvent } from '../webhooks/event.js';
import { signEvent } from '../webhooks/sign.js';

export interface SignedEventOptions {
  /**
   * When the event happened and the delivery was signed. A time more than 5 minutes back makes a delivery
   * `verifyWebhook` refuses as stale, for a receiver's test of that case. @default now
   */
  at?: Date | undefined;
}

/** A delivery as a receiver gets it: post `body` with `headers` to the handler under test. */
export interface SignedEvent {
  /** The exact body to send, the event as JSON. */
  body: string;
  /** `content-type`, `webhook-id`, `webhook-timestamp` and `webhook-signature`. */
  headers: Record<string, string>;
  /** The event the body holds, as `verifyWebhook` returns it. */
  event: VideoEvent;
}

/**
 * The event of `video` (its type from the video's status unless `type` is given: `video.completed` for COMPLETE),
 * signed with `secret` (`whsec_` and base64) as a delivery of the SDK's is. The event's id is the one the SDK gives
 * this video's settlement, so two calls for one video make two tries of one event, as a redelivery is.
 *
 *   const { body, headers } = await signedEvent({ ...video, status: 'COMPLETE' }, secret);
 *   const response = await fetch(receiverURL, { method: 'POST', body, headers });
 *
 * @throws TypeError for a video not settled (QUEUED, PROCESSING) when no `type` is given; Error for a secret that is not base64.
 */
export async function signedEvent(
  video: Video,
  secret: string,
  type?: VideoEventType,
  options: SignedEventOptions = {},
): Promise<SignedEvent> {
  const at = options.at ?? new Date();
  const event = await videoEvent(video, { type, at });
  const { body, headers } = signEvent(event, secret, at);
  return { body, headers: { ...headers }, event };
}
