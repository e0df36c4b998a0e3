import { createHash } from 'node:crypto';
import type { VideoEvent } from '../webhooks/event.js';

/** A delivery's data: the event to send and where. */
export interface DeliveryJobData {
  event: VideoEvent;
  /** Checked by `checkNotifyUrl` when the job that settled was made. */
  notifyUrl: string;
}

/** What `deliveryJob` returns: the arguments of `deliveryQueue.add(name, data, opts)`. */
export interface DeliveryQueueJob {
  name: 'delivery';
  data: DeliveryJobData;
  opts: { jobId: string; attempts: number; backoff: { type: 'exponential'; delay: number } };
}

/** Tries of one delivery: with the backoff below, the last is about 9 hours after the first. */
export const DELIVERY_ATTEMPTS = 15;
/** First delay of the exponential backoff between tries, in ms: 2 s, 4 s, 8 s ... about 4.5 hours. */
export const DELIVERY_BACKOFF_MS = 2_000;

/**
 * The delivery of `event` to `notifyUrl` as a queue job. Its `jobId` comes from both, so that adding it again while
 * the queue holds it (a processor that died after adding it, and ran again) adds nothing.
 */
export function deliveryJob(event: VideoEvent, notifyUrl: string): DeliveryQueueJob {
  return {
    name: 'delivery',
    data: { event, notifyUrl },
    opts: {
      jobId: deliveryJobId(event.id, notifyUrl),
      attempts: DELIVERY_ATTEMPTS,
      backoff: { type: 'exponential', delay: DELIVERY_BACKOFF_MS },
    },
  };
}

/** The queue job id of the delivery of the event `eventId` to `notifyUrl`: where to look for it (the relay's `GET /watches/{id}`). */
export function deliveryJobId(eventId: string, notifyUrl: string): string {
  const target = createHash('sha256').update(notifyUrl).digest('hex').slice(0, 16);
  return `delivery-${eventId.slice('evt_'.length)}-${target}`;
}
