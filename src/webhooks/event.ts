/**
 * The event a webhook carries: what a receiver is told when a video job settles. The body is this object as JSON, a
 * few KB at most: the video as last read from the service, never a signed file address (the receiver asks for the
 * file with `contentURL` or `download`, which hold the key).
 */
import type { Video } from '../schemas.js';

/** The three ways a video job settles, as event types. */
export type VideoEventType = 'video.completed' | 'video.failed' | 'video.cancelled';

export const VIDEO_EVENT_TYPES: readonly VideoEventType[] = ['video.completed', 'video.failed', 'video.cancelled'];

/**
 * Why the SDK, not the service, ended a watch with `video.failed`: the service answered 404 for the video
 * (`video_not_found`), or the watch reached its bound on total time with the video still unsettled (`watch_timed_out`).
 */
export interface VideoEventReason {
  code: 'video_not_found' | 'watch_timed_out';
  /** What happened, in a sentence, naming the video. */
  message: string;
}

/**
 * A settled video job, as a webhook delivers it (Standard Webhooks' payload: `type`, `timestamp`, `data`).
 * Every delivery of one event, retries included, carries the same `id`, which is also its `webhook-id` header:
 * de-duplicate on it.
 */
export interface VideoEvent {
  /** The event's id, `evt_` and 32 hex digits, the same for every delivery of it; also the `webhook-id` header. */
  id: string;
  type: VideoEventType;
  /** When the SDK saw the video settle, as an ISO 8601 date. */
  timestamp: string;
  /**
   * The video as last read from the service. For `video.failed` with a `reason`, the service gave none to read:
   * a video of the id with status `FAILED` and `error` the reason (`video_not_found`), or the last one read, still
   * unsettled (`watch_timed_out`).
   */
  data: Video;
  /** Set only when the SDK ended a watch without the service settling the video. @default undefined */
  reason?: VideoEventReason | undefined;
}

/** The event type of a video in a final status, or undefined for a status that is not final. */
export function eventTypeOf(status: Video['status']): VideoEventType | undefined {
  if (status === 'COMPLETE') return 'video.completed';
  if (status === 'FAILED') return 'video.failed';
  if (status === 'CANCELLED') return 'video.cancelled';
  return undefined;
}

/**
 * The id of the event of `type` for the video `videoId`: derived from both, so that the same settlement seen twice
 * (a processor that died after adding its delivery, a watch and a job of the same video) has one id. Web Crypto's
 * SHA-256 (every runtime has it), not `node:crypto`: this module runs in Workers.
 */
export async function eventId(videoId: string, type: VideoEventType): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${type}\n${videoId}`));
  const hex = Array.from(new Uint8Array(digest).subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `evt_${hex}`;
}

/**
 * The event for `video`: its type from the video's status unless given (`video.failed` for a reason), the
 * timestamp now unless given. The data is the video's own fields: what the service sent, no more.
 */
export async function videoEvent(
  video: Video,
  options: { type?: VideoEventType | undefined; reason?: VideoEventReason | undefined; at?: Date | undefined } = {},
): Promise<VideoEvent> {
  const type = options.type ?? (options.reason ? 'video.failed' : eventTypeOf(video.status));
  if (type === undefined) throw new TypeError(`video ${video.id} is ${video.status}, not settled: it has no event`);
  const event: VideoEvent = { id: await eventId(video.id, type), type, timestamp: (options.at ?? new Date()).toISOString(), data: video };
  if (options.reason !== undefined) event.reason = options.reason;
  return event;
}
