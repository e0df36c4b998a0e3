/**
 * A receiver as a user writes one, over a real socket: a node:http server that reads the raw body, checks it with
 * `verifyWebhook` and acts once per event id; posted `signedEvent` deliveries with fetch, as a sender posts them.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Video } from '../../src/index.js';
import { signedEvent } from '../../src/testing/index.js';
import { type VideoEvent, verifyWebhook, WebhookVerificationError } from '../../src/webhooks/index.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const video: Video = { id: 'vid_receiver', status: 'COMPLETE', created_at: 1_760_000_000, progress: 100 };

async function rawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The receiver: 204 for an event (handled once per id), 400 with the reason for a refusal. */
async function startReceiver() {
  const handled: VideoEvent[] = [];
  const seen = new Set<string>();
  const server = createServer(async (request, response) => {
    try {
      const event = verifyWebhook(await rawBody(request), request.headers, secret);
      if (!seen.has(event.id)) {
        seen.add(event.id);
        handled.push(event);
      }
      response.writeHead(204).end();
    } catch (error) {
      const reason = error instanceof WebhookVerificationError ? error.reason : 'fault';
      response.writeHead(error instanceof WebhookVerificationError ? 400 : 500, { 'content-type': 'text/plain' }).end(reason);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/avatar-video`;
  return { url, handled };
}

const post = async (url: string, body: string | Uint8Array, headers: Record<string, string>) => {
  const response = await fetch(url, { method: 'POST', body: body as BodyInit, headers });
  return { status: response.status, text: await response.text() };
};

describe('a node:http receiver using verifyWebhook', () => {
  it('takes a signed delivery from the raw body and headers, once per event id across retries', async () => {
    const { url, handled } = await startReceiver();
    const first = await signedEvent(video, secret);
    expect(await post(url, first.body, first.headers)).toEqual({ status: 204, text: '' });
    // A retry of the same event: signed anew, the same webhook-id; answered 2xx, handled once.
    const retry = await signedEvent(video, secret);
    expect(await post(url, retry.body, retry.headers)).toEqual({ status: 204, text: '' });
    const failed = await signedEvent({ ...video, id: 'vid_other', status: 'FAILED' }, secret);
    expect((await post(url, new TextEncoder().encode(failed.body), failed.headers)).status).toBe(204);
    expect(handled).toEqual([first.event, failed.event]);
  });

  it('refuses what it cannot trust with 400 and the reason, and handles none of it', async () => {
    const { url, handled } = await startReceiver();
    const { body, headers } = await signedEvent(video, secret);
    const stale = await signedEvent(video, secret, undefined, { at: new Date(Date.now() - 3_600_000) });
    const other = await signedEvent(video, `whsec_${randomBytes(32).toString('base64')}`);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(await post(url, body.replace('COMPLETE', 'FAILED'), headers)).toEqual({ status: 400, text: 'bad_signature' });
    expect(await post(url, other.body, other.headers)).toEqual({ status: 400, text: 'bad_signature' });
    expect(await post(url, stale.body, stale.headers)).toEqual({ status: 400, text: 'stale_timestamp' });
    expect(await post(url, body, unsigned)).toEqual({ status: 400, text: 'missing_header' });
    expect(handled).toEqual([]);
  });
});
