/**
 * The type contract of `avatar-video/webhooks` and `signedEvent` (compiled by test/e2e/types.test.ts against the
 * build, and by `npm run typecheck` against the sources): the raw body as text or bytes, never a parsed object; web or
 * Node headers; the event's type and a refusal's reason as unions to branch on. Nothing here runs.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AvatarVideoError, Video } from 'avatar-video';
import { type SignedEvent, type SignedEventOptions, signedEvent } from 'avatar-video/testing';
import {
  type RawBody,
  type VideoEvent,
  type VideoEventType,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from 'avatar-video/webhooks';

declare const secret: string;
declare const request: Request;
declare const nodeHeaders: IncomingHttpHeaders;
declare const buffer: Buffer;

export const fromText: VideoEvent = verifyWebhook(await request.text(), request.headers, secret);
export const fromBuffer: VideoEvent = verifyWebhook(buffer, nodeHeaders, secret);
export const fromBytes: VideoEvent = verifyWebhook(await request.arrayBuffer(), { 'webhook-id': ['evt_1'] }, secret);
export const headers: WebhookHeaders = nodeHeaders;
export const body: RawBody = new Uint8Array(0);
// @ts-expect-error a parsed object is not the raw body the signature covers
verifyWebhook(JSON.parse('{}') as Record<string, unknown>, request.headers, secret);
// @ts-expect-error the secret is required
verifyWebhook('{}', request.headers);

export function handle(event: VideoEvent): string {
  const video: Video = event.data;
  switch (event.type) {
    case 'video.completed':
      return video.id;
    case 'video.failed':
      return event.reason?.code ?? video.error?.code ?? 'failed';
    case 'video.cancelled':
      return 'cancelled';
  }
}

export function reasonOf(error: unknown): WebhookVerificationReason | undefined {
  if (!(error instanceof WebhookVerificationError)) return undefined;
  const sdkError: AvatarVideoError = error;
  return sdkError instanceof WebhookVerificationError ? error.reason : undefined;
}
// @ts-expect-error not a reason
export const notReason: WebhookVerificationReason = 'expired';
// @ts-expect-error not an event type
export const notType: VideoEventType = 'video.started';

declare const video: Video;
const options: SignedEventOptions = { at: undefined };
export const delivery: Promise<SignedEvent> = signedEvent(video, secret, 'video.failed', options);
export const delivered = async (): Promise<VideoEvent> => {
  const { body: text, headers: sent } = await signedEvent(video, secret);
  return verifyWebhook(text, sent, secret);
};
