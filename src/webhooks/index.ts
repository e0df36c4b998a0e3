/**
 * `avatar-video/webhooks`: the receiving end of the events the SDK sends when a video job settles (from
 * `avatar-video/bullmq`'s delivery processor or the `avatar-video relay` command). Deliveries follow the Standard
 * Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`, `whsec_` secrets), checked with its
 * reference implementation, `standardwebhooks`. No `node:` module is loaded: it runs in Node, Bun, Deno, Workers and
 * Edge functions alike. A Next.js route handler:
 *
 *   export async function POST(request: Request) {
 *     let event: VideoEvent;
 *     try {
 *       event = verifyWebhook(await request.text(), request.headers, process.env.AVATAR_VIDEO_WEBHOOK_SECRET!);
 *     } catch (error) {
 *       if (error instanceof WebhookVerificationError) return new Response(error.reason, { status: 400 });
 *       throw error;
 *     }
 *     if (await seenBefore(event.id)) return new Response(null, { status: 204 }); // a retry of one already handled
 *     if (event.type === 'video.completed') await saveVideo(event.data.id);
 *     return new Response(null, { status: 204 });
 *   }
 *
 * `WebhookVerificationError` is the main entry's `AvatarVideoError`: the build imports that from `avatar-video` by name.
 */
export type { RawBody } from './body.js';
export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export type { VideoEvent, VideoEventReason, VideoEventType } from './event.js';
export type { WebhookHeaders } from './headers.js';
export { verifyWebhook } from './verify.js';
