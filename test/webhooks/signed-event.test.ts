/**
 * `signedEvent` of avatar-video/testing: a delivery for a receiver's own tests, the event the SDK makes for the video
 * and signed as its delivery processor signs, with the type and time a test asks for.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Video } from '../../src/index.js';
import { signedEvent } from '../../src/testing/index.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const video = (status: Video['status']): Video => ({ id: 'vid_signed', status, created_at: 1_760_000_000, progress: null });

describe('signedEvent', () => {
  it("takes the type from the video's status, the body the event as JSON, the headers Standard Webhooks'", async () => {
    const types = await Promise.all(
      (['COMPLETE', 'FAILED', 'CANCELLED'] as const).map(async (status) => (await signedEvent(video(status), secret)).event.type),
    );
    expect(types).toEqual(['video.completed', 'video.failed', 'video.cancelled']);
    const { body, headers, event } = await signedEvent(video('COMPLETE'), secret);
    expect(JSON.parse(body)).toEqual(event);
    expect(event.data).toEqual(video('COMPLETE'));
    expect(Object.keys(headers).sort()).toEqual(['content-type', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': event.id });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('takes a type of its own, and a time for the event and the signature', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const { headers, event } = await signedEvent(video('PROCESSING'), secret, 'video.failed', { at });
    expect(event).toMatchObject({ type: 'video.failed', timestamp: '2026-01-02T03:04:05.678Z' });
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    // An hour-old delivery is refused by any Standard Webhooks receiver, as a stale-timestamp test wants.
    expect(() => new Webhook(secret).verify(JSON.stringify(event), headers)).toThrow(/timestamp too old/);
  });

  it('gives one settlement of one video one id; another type or video, another id', async () => {
    const [a, b, failed, other] = await Promise.all([
      signedEvent(video('COMPLETE'), secret),
      signedEvent(video('COMPLETE'), secret, 'video.completed', { at: new Date(Date.now() - 1000) }),
      signedEvent(video('COMPLETE'), secret, 'video.failed'),
      signedEvent({ ...video('COMPLETE'), id: 'vid_other' }, secret),
    ]);
    expect(b.event.id).toBe(a.event.id);
    expect(new Set([a.event.id, failed.event.id, other.event.id]).size).toBe(3);
  });

  it('refuses a video not settled when no type is given, and a secret that is not base64', async () => {
    await expect(signedEvent(video('PROCESSING'), secret)).rejects.toThrow(TypeError);
    await expect(signedEvent(video('COMPLETE'), 'whsec_not base64!')).rejects.toThrow();
  });
});
