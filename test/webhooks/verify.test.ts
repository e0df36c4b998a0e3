/**
 * `verifyWebhook` against deliveries signed as the SDK signs them (`signedEvent` of avatar-video/testing, the delivery
 * processor's code) and by `standardwebhooks` itself: what verifies, each reason a delivery is refused for, the kinds
 * of body and headers receivers hold, and that no refusal ever shows the secret or the body.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { AvatarVideoError, type Video } from '../../src/index.js';
import { signedEvent } from '../../src/testing/index.js';
import { type VideoEvent, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../src/webhooks/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const secret = newSecret();

const video = (status: Video['status'] = 'COMPLETE'): Video => ({
  id: 'vid_0123456789',
  object: 'video',
  status,
  created_at: 1_760_000_000,
  completed_at: 1_760_000_120,
  progress: 100,
  error: status === 'FAILED' ? { code: 'render_failed', message: 'the render failed' } : null,
  model: 'service-avatar-x',
});

const MINUTE = 60_000;

/** The refusal `verify` throws, failing the test if it returns. */
function refusal(verify: () => unknown): WebhookVerificationError {
  try {
    verify();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('the delivery verified');
}

const reasonOf = (verify: () => unknown): WebhookVerificationReason => refusal(verify).reason;

/** A delivery of `body` as `id`, signed by `standardwebhooks` itself rather than the SDK. */
function packageSigned(body: string, id = 'msg_1', at = new Date()) {
  const seconds = Math.floor(at.getTime() / 1000);
  const signature = new Webhook(secret).sign(id, new Date(seconds * 1000), body);
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature };
}

describe('a delivery the SDK signed', () => {
  it('verifies with verifyWebhook, which returns the event', async () => {
    const { body, headers, event } = await signedEvent(video(), secret);
    const verified: VideoEvent = verifyWebhook(body, headers, secret);
    expect(verified).toEqual(event);
    expect(verified).toMatchObject({ type: 'video.completed', data: { id: 'vid_0123456789', status: 'COMPLETE' } });
    expect(verified.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(headers['webhook-id']).toBe(verified.id);
  });

  it("verifies with standardwebhooks' own Webhook.verify, as any Standard Webhooks receiver checks it", async () => {
    const { body, headers, event } = await signedEvent(video('FAILED'), secret);
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
    expect(event.type).toBe('video.failed');
  });

  it("verifies what standardwebhooks' own sign made (both ends are the specification's)", async () => {
    const { event } = await signedEvent(video('CANCELLED'), secret);
    const body = JSON.stringify(event);
    expect(verifyWebhook(body, packageSigned(body, event.id), secret)).toEqual(event);
  });

  it('gives every try of one event the same id, signed anew each time', async () => {
    const first = await signedEvent(video(), secret, undefined, { at: new Date(Date.now() - 2 * MINUTE) });
    const second = await signedEvent(video(), secret);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(verifyWebhook(first.body, first.headers, secret).id).toBe(verifyWebhook(second.body, second.headers, secret).id);
  });
});

describe('refusals', () => {
  it('refuses another secret: bad_signature', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    const error = refusal(() => verifyWebhook(body, headers, newSecret()));
    expect(error.reason).toBe('bad_signature');
    expect(error.message).toMatch(/secret/);
  });

  it('refuses a body changed on its way, even only re-serialised: bad_signature', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    expect(reasonOf(() => verifyWebhook(body.replace('COMPLETE', 'FAILED'), headers, secret))).toBe('bad_signature');
    expect(reasonOf(() => verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), headers, secret))).toBe('bad_signature');
    expect(reasonOf(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_other' }, secret))).toBe('bad_signature');
  });

  it('refuses a delivery signed more than 5 minutes ago (stale) or ahead (future); takes one inside the tolerance', async () => {
    const stale = await signedEvent(video(), secret, undefined, { at: new Date(Date.now() - 6 * MINUTE) });
    const staleError = refusal(() => verifyWebhook(stale.body, stale.headers, secret));
    expect(staleError.reason).toBe('stale_timestamp');
    expect(staleError.message).toMatch(/signed 3\d\d s ago, past the 300 s tolerance/);
    const future = await signedEvent(video(), secret, undefined, { at: new Date(Date.now() + 6 * MINUTE) });
    expect(reasonOf(() => verifyWebhook(future.body, future.headers, secret))).toBe('future_timestamp');
    const recent = await signedEvent(video(), secret, undefined, { at: new Date(Date.now() - 4 * MINUTE) });
    expect(verifyWebhook(recent.body, recent.headers, secret).timestamp).toBe(recent.event.timestamp);
  });

  it('refuses a timestamp that is not a number: bad_timestamp', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    expect(reasonOf(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': 'soon' }, secret))).toBe('bad_timestamp');
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'refuses a delivery without %s: missing_header, naming it',
    async (name) => {
      const { body, headers } = await signedEvent(video(), secret);
      const error = refusal(() => verifyWebhook(body, { ...headers, [name]: undefined }, secret));
      expect(error.reason).toBe('missing_header');
      expect(error.message).toContain(`no ${name} header`);
      expect(reasonOf(() => verifyWebhook(body, { ...headers, [name]: '' }, secret))).toBe('missing_header');
    },
  );

  it('refuses a signed body that is no video event: not_an_event, saying what is wrong', async () => {
    const { event } = await signedEvent(video(), secret);
    const cases: Array<[body: string, problem: RegExp]> = [
      ['not json', /not JSON/],
      ['[1, 2]', /not a JSON object/],
      [JSON.stringify({ ...event, id: 'evt_another' }), /id is not the webhook-id/],
      [JSON.stringify({ ...event, type: 'video.started' }), /type is not one of video.completed, video.failed, video.cancelled/],
      [JSON.stringify({ ...event, timestamp: 'yesterday' }), /timestamp is not an ISO 8601 date/],
      [JSON.stringify({ ...event, timestamp: 1_760_000_000 }), /timestamp is not an ISO 8601 date/],
      [JSON.stringify({ ...event, data: { id: 'vid_1' } }), /data is not a video/],
      [JSON.stringify({ ...event, data: null }), /data is not a video/],
      [JSON.stringify({ ...event, reason: 'gone' }), /reason is not an object/],
      ['', /not JSON/],
    ];
    for (const [body, problem] of cases) {
      const error = refusal(() => verifyWebhook(body, packageSigned(body, event.id), secret));
      expect(error.reason, body).toBe('not_an_event');
      expect(error.message, body).toMatch(problem);
    }
    const withReason = { ...event, type: 'video.failed', reason: { code: 'video_not_found', message: 'no video vid_0123456789' } };
    const body = JSON.stringify(withReason);
    expect(verifyWebhook(body, packageSigned(body, event.id), secret)).toEqual(withReason);
  });

  it('refuses a parsed object (or any non-body) for the raw body: bad_body, saying to pass the raw body', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    const error = refusal(() => verifyWebhook(JSON.parse(body) as never, headers, secret));
    expect(error.reason).toBe('bad_body');
    expect(error.message).toMatch(/an object, not the raw body.*request's text or bytes/);
    for (const notBody of [undefined, null, 42, [1]]) {
      expect(reasonOf(() => verifyWebhook(notBody as never, headers, secret))).toBe('bad_body');
    }
  });

  it('refuses bytes that are not UTF-8: bad_body', async () => {
    const { headers } = await signedEvent(video(), secret);
    expect(reasonOf(() => verifyWebhook(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers, secret))).toBe('bad_body');
  });

  it('refuses a secret it cannot read: bad_secret, whatever the request', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    for (const bad of ['', '   ', 'whsec_', 'whsec_not base64!', undefined, null, 42]) {
      const error = refusal(() => verifyWebhook(body, headers, bad as never));
      expect(error.reason, String(bad)).toBe('bad_secret');
    }
    expect(refusal(() => verifyWebhook(body, headers, undefined as never)).message).toMatch(
      /undefined \(is its environment variable set\?\)/,
    );
    expect(reasonOf(() => verifyWebhook(body, {}, ''))).toBe('bad_secret');
  });
});

describe('what receivers hold', () => {
  it('takes the body as a string, a Uint8Array, a Node Buffer or an ArrayBuffer', async () => {
    const { body, headers, event } = await signedEvent(video(), secret);
    const bytes = new TextEncoder().encode(body);
    expect(verifyWebhook(bytes, headers, secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), headers, secret)).toEqual(event);
    expect(verifyWebhook(bytes.buffer, headers, secret)).toEqual(event);
    // A view into a larger buffer: only its own bytes are the body.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    expect(verifyWebhook(padded.subarray(4, 4 + bytes.length), headers, secret)).toEqual(event);
  });

  it('keeps a byte-order mark as part of the body, as the signature saw it', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(body)]);
    expect(reasonOf(() => verifyWebhook(bom, headers, secret))).toBe('bad_signature');
  });

  it('takes web Headers, and Node-style records whatever the case of their names', async () => {
    const { body, headers, event } = await signedEvent(video(), secret);
    expect(verifyWebhook(body, new Headers(headers), secret)).toEqual(event);
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(body, upper, secret)).toEqual(event);
    const mixed = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-timestamp': headers['webhook-timestamp'],
      'webhook-Signature': headers['webhook-signature'],
    };
    expect(verifyWebhook(body, mixed, secret)).toEqual(event);
  });

  it('reads a repeated header as HTTP combines it: one valid signature among several passes, two ids do not', async () => {
    const { body, headers, event } = await signedEvent(video(), secret);
    const other = await signedEvent(video(), newSecret());
    const signatures = [other.headers['webhook-signature'] as string, headers['webhook-signature'] as string];
    expect(verifyWebhook(body, { ...headers, 'webhook-signature': signatures }, secret)).toEqual(event);
    const web = new Headers(headers);
    web.append('webhook-signature', other.headers['webhook-signature'] as string);
    expect(verifyWebhook(body, web, secret)).toEqual(event);
    const twoIds = { ...headers, 'webhook-id': [headers['webhook-id'] as string, 'evt_other'] };
    expect(reasonOf(() => verifyWebhook(body, twoIds, secret))).toBe('bad_signature');
    expect(reasonOf(() => verifyWebhook(body, { ...headers, 'webhook-id': [] }, secret))).toBe('missing_header');
  });
});

describe('WebhookVerificationError', () => {
  it('is an AvatarVideoError with its reason, in JSON too', async () => {
    const { body, headers } = await signedEvent(video(), secret);
    const error = refusal(() => verifyWebhook(body, headers, newSecret()));
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error.name).toBe('WebhookVerificationError');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
  });

  it('never shows the secret or the body, in its message, its JSON or util.inspect', async () => {
    const { body, headers, event } = await signedEvent(video(), secret);
    const stale = await signedEvent(video(), secret, undefined, { at: new Date(Date.now() - 10 * MINUTE) });
    const notEvent = JSON.stringify({ secret, id: 'x' });
    const errors = [
      refusal(() => verifyWebhook(body, headers, newSecret())),
      refusal(() => verifyWebhook(body.replace('COMPLETE', 'FAILED'), headers, secret)),
      refusal(() => verifyWebhook(stale.body, stale.headers, secret)),
      refusal(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, secret)),
      refusal(() => verifyWebhook(notEvent, packageSigned(notEvent, event.id), secret)),
      refusal(() => verifyWebhook(JSON.parse(body) as never, headers, secret)),
      refusal(() => verifyWebhook(body, headers, `${secret}!`)),
      refusal(() => verifyWebhook(body, headers, secret.slice('whsec_'.length, -2))),
    ];
    const key = secret.slice('whsec_'.length);
    for (const error of errors) {
      for (const shown of [error.message, JSON.stringify(error), inspect(error, { depth: 5, showHidden: true })]) {
        expect(shown, error.reason).not.toContain(key.slice(0, 16));
        expect(shown, error.reason).not.toContain(body.slice(0, 40));
        expect(shown, error.reason).not.toContain('vid_0123456789');
      }
    }
    expect(new Set(errors.map((error) => error.reason))).toEqual(
      new Set(['bad_signature', 'stale_timestamp', 'missing_header', 'not_an_event', 'bad_body', 'bad_secret']),
    );
  });
});
