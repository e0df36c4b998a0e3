/**
 * avatar-video/bullmq's delivery processor, one try at a time (a BullMQ job is its data), against real node:http
 * receivers on 127.0.0.1: what it sends and signs, what it makes of each answer, what it refuses to reach. The same
 * processor under real workers and a real Redis, with BullMQ's retries: test/bullmq/webhook-deliveries.test.ts.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createDeliveryProcessor, type DeliveryJobData, deliveryJob, WebhookDeliveryError } from '../../src/bullmq/index.js';
import { InvalidArgumentError, type Video } from '../../src/index.js';
import { type VideoEvent, videoEvent } from '../../src/webhooks/event.js';
import { useCleanup } from '../helpers/fixture.js';
import { type Answer, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 'delivery-test').toString('base64')}`;
const VIDEO: Video = { id: 'vid_0123456789abcdef', object: 'video', status: 'COMPLETE', created_at: 1_750_000_000, progress: 100 };
const closers = useCleanup();

async function receiver(answer?: Answer): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(answer);
  closers.push(() => started.close());
  return started;
}

/** A delivery job's data, as `deliveryJob` makes it, for `url`. */
async function job(url: string, event?: VideoEvent): Promise<{ data: DeliveryJobData }> {
  return { data: deliveryJob(event ?? (await videoEvent(VIDEO)), url).data };
}

const local = (options: { timeoutMs?: number } = {}) =>
  createDeliveryProcessor({ secret: SECRET, allowPrivateNotifyUrls: true, ...options });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the try succeeded'),
    (error: unknown) => error,
  );

describe('createDeliveryProcessor: a try', () => {
  it('POSTs the event signed as Standard Webhooks say: its reference implementation verifies it', async () => {
    const hooks = await receiver();
    const delivery = await job(`${hooks.origin}/hooks/video?token=t0k3n`);
    const deliver = local();
    // BullMQ hands its AbortSignal only to a processor that declares three parameters.
    expect(deliver.length).toBe(3);
    const result = await deliver(delivery);
    expect(result).toEqual({ eventId: delivery.data.event.id, type: 'video.completed', status: 200 });
    const [got] = await hooks.waitFor(1);
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hooks/video?token=t0k3n');
    const verified = new Webhook(SECRET).verify(got?.body as string, got?.headers as Record<string, string>);
    expect(verified).toEqual(delivery.data.event);
    expect(JSON.parse(got?.body as string).data).toEqual(VIDEO);
    expect(got?.headers['webhook-id']).toBe(delivery.data.event.id);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['user-agent']).toMatch(/^avatar-video\//);
    // What the receiver sees is the signed event and its transport, nothing of the worker's.
    const names = Object.keys(got?.headers ?? {}).filter((name) => !['host', 'connection', 'content-length', 'user-agent'].includes(name));
    expect(names.sort()).toEqual(['content-type', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
  });

  it('signs each try at its own time, with the one webhook-id: an event settled long ago still verifies', async () => {
    let answered = 0;
    const hooks = await receiver((_request, response) => {
      response.statusCode = answered++ === 0 ? 500 : 204;
      response.end();
    });
    const old = await videoEvent(VIDEO, { at: new Date('2020-01-01T00:00:00Z') });
    const delivery = await job(`${hooks.origin}/hooks`, old);
    const deliver = local();
    await expect(deliver(delivery)).rejects.toThrow(WebhookDeliveryError);
    await expect(deliver(delivery)).resolves.toMatchObject({ status: 204 });
    const tries = await hooks.waitFor(2);
    expect(new Set(tries.map((got) => got.headers['webhook-id']))).toEqual(new Set([old.id]));
    for (const got of tries) {
      // Webhook.verify refuses a timestamp more than 5 minutes from now: each try's is its own, not the event's.
      expect(new Webhook(SECRET).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
        timestamp: '2020-01-01T00:00:00.000Z',
      });
    }
  });

  it('makes any other answer a failed try, to be made again: its status, the origin, never the path or query', async () => {
    const hooks = await receiver((_request, response) => {
      response.statusCode = 503;
      response.end('database\n  down');
    });
    const error = await failure(local()(await job(`${hooks.origin}/hooks/secret-path?token=t0k3n`)));
    expect(error).toBeInstanceOf(WebhookDeliveryError);
    expect(error).toMatchObject({ name: 'WebhookDeliveryError', status: 503, origin: hooks.origin, permanent: false });
    expect((error as Error).message).toBe(`${hooks.origin} answered 503: "database down"`);
    expect(JSON.stringify(error)).not.toMatch(/secret-path|t0k3n|whsec_/);
  });

  it('makes a lost connection a failed try, to be made again', async () => {
    const hooks = await receiver((_request, response) => response.socket?.destroy());
    const error = await failure(local()(await job(`${hooks.origin}/hooks`)));
    expect(error).toMatchObject({ name: 'WebhookDeliveryError', permanent: false, status: undefined });
    expect((error as Error).message).toContain(`could not deliver to ${hooks.origin}`);
  });

  it('gives up a try the receiver does not answer within timeoutMs, to be made again', async () => {
    const hooks = await receiver(() => undefined);
    const error = await failure(local({ timeoutMs: 500 })(await job(`${hooks.origin}/hooks`)));
    expect(error).toMatchObject({
      name: 'WebhookDeliveryError',
      permanent: false,
      message: `${hooks.origin} did not answer within 500 ms`,
    });
  }, 30_000);

  it('reads at most a few KB of an answer: an endless body does not hold the try', async () => {
    const hooks = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(1024);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    // The timeout is far beyond the test's: only stopping the read ends the try.
    await expect(local({ timeoutMs: 600_000 })(await job(`${hooks.origin}/hooks`))).resolves.toMatchObject({ status: 200 });
  }, 60_000);

  it('does not follow a redirect: the target gets nothing, and the job fails for good', async () => {
    const target = await receiver();
    const hooks = await receiver((_request, response) => {
      response.writeHead(302, { location: `${target.origin}/elsewhere` });
      response.end();
    });
    const error = await failure(local()(await job(`${hooks.origin}/hooks`)));
    expect(error).toBeInstanceOf(WebhookDeliveryError);
    // BullMQ does not try again an error of this name (its UnrecoverableError).
    expect(error).toMatchObject({ name: 'UnrecoverableError', status: 302, permanent: true });
    expect((error as Error).message).toContain('a redirect, which a delivery does not follow');
    expect(hooks.received).toHaveLength(1);
    expect(target.received).toEqual([]);
  });
});

describe('createDeliveryProcessor: what it refuses', () => {
  it('refuses loopback addresses, written out or resolved (localhost), sending nothing; for good', async () => {
    const hooks = await receiver();
    const port = new URL(hooks.origin).port;
    const deliver = createDeliveryProcessor({ secret: SECRET });
    for (const [host, says] of [
      ['127.0.0.1', '127.0.0.1 is a loopback address'],
      ['[::1]', '[::1] is a loopback address'],
      ['localhost', /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
      ['[::ffff:127.0.0.1]', 'a loopback address (127.0.0.0/8), IPv4-mapped'],
      ['0.0.0.0', 'an unspecified address'],
    ] as const) {
      const error = await failure(deliver(await job(`http://${host}:${port}/hooks`)));
      expect(error).toBeInstanceOf(WebhookDeliveryError);
      expect(error).toMatchObject({ name: 'UnrecoverableError', permanent: true });
      expect((error as Error).message).toMatch(says);
      expect((error as Error).message).toContain('allowPrivateNotifyUrls');
    }
    expect(hooks.received).toEqual([]);
  });

  it('refuses an event over 64 KB, sending nothing; for good', async () => {
    const hooks = await receiver();
    const big = await videoEvent({ ...VIDEO, padding: 'x'.repeat(70_000) } as Video);
    const error = await failure(local()(await job(`${hooks.origin}/hooks`, big)));
    expect(error).toMatchObject({ name: 'UnrecoverableError', permanent: true });
    expect((error as Error).message).toMatch(/is 70\d{3} bytes; an event is at most 65536/);
    expect(hooks.received).toEqual([]);
  });

  it('refuses job data that is no delivery: a notify URL of another scheme, an event that is none; for good', async () => {
    const deliver = local();
    const event = await videoEvent(VIDEO);
    for (const data of [
      { event, notifyUrl: 'file:///etc/passwd' },
      { event, notifyUrl: 'ftp://example.com/' },
      { event: { id: 'evt_1' }, notifyUrl: 'https://example.com/' },
      { notifyUrl: 'https://example.com/' },
    ]) {
      const error = await failure(deliver({ data: data as DeliveryJobData }));
      expect(error).toMatchObject({ name: 'UnrecoverableError', permanent: true, message: expect.stringMatching(/^job data: /) });
    }
  });

  it('checks its secret at creation, naming it but never showing it', () => {
    const make = (secret: unknown) => () => createDeliveryProcessor({ secret: secret as string });
    for (const bad of [
      undefined,
      '',
      'whsec_',
      'hunter2-hunter2-hunter2-hunter2',
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      'whsec_not base64!!',
    ]) {
      const error = (() => {
        try {
          make(bad)();
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument: 'secret' });
      if (typeof bad === 'string' && bad.length > 6) expect((error as Error).message).not.toContain(bad.slice(6));
    }
    expect(make(SECRET)).not.toThrow();
    expect(make(`whsec_${Buffer.alloc(24).toString('base64')}`)).not.toThrow();
    expect(() => createDeliveryProcessor({ secret: SECRET, timeoutMs: 0 })).toThrow(InvalidArgumentError);
  });
});
