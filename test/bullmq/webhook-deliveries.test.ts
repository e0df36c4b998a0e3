/**
 * Webhook deliveries of avatar-video/bullmq under real BullMQ workers, on a real redis-server (started here), with
 * the mock and real node:http receivers: a video job's event reaches its receiver signed; a receiver down for 30 s
 * gets it after, every try with one webhook-id; a delivery worker SIGKILLed after it sent and before the answer
 * leaves the job to another, which sends it again with the same id; a refused address fails at once, in one try.
 *
 * Without redis-server on PATH it is skipped, saying how to install it; under CI=true it fails instead.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Job, Queue, Worker } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryProcessor, createVideoProcessor, deliveryJob, type VideoJobResult, videoJob } from '../../src/bullmq/index.js';
import { AvatarVideo, type Video } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { type VideoEvent, videoEvent } from '../../src/webhooks/event.js';
import { startWorkerHost, stopWorkerHosts, type WorkerHost } from '../helpers/bullmq-host.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { findRedisServer, REDIS_INSTALL_HINT, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const SECRET = `whsec_${Buffer.alloc(32, 'webhook-deliveries').toString('base64')}`;
const DELIVERY_WORKER = ['--import', 'tsx', fileURLToPath(new URL('../helpers/delivery-worker.ts', import.meta.url))];
const VIDEO: Video = { id: 'vid_fedcba9876543210', object: 'video', status: 'COMPLETE', created_at: 1_750_000_000, progress: 100 };

const closers = useCleanup();
const runnable = findRedisServer() !== undefined || process.env.CI === 'true';
// The default reporter names no skipped test: say it here.
if (!runnable) console.warn(`test/bullmq/webhook-deliveries.test.ts skipped: no redis-server on PATH; ${REDIS_INSTALL_HINT}`);
const test = runnable ? it : it.skip;

let redis: RedisServer;
let mock: MockServer;
let dir: string;
let audio: string;
let queues = 0;

beforeAll(async () => {
  if (!runnable) return;
  dir = await mkdtemp(join(tmpdir(), 'avatar-webhook-deliveries-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  redis = await startRedisServer(dir);
  mock = await startMockServer({ processingMs: 200 });
  closers.push(
    () => redis.close(),
    () => mock.close(),
  );
  audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
});

const connection = () => ({ path: redis.path });

/** A queue of a name no other test uses, closed after the test. */
function queue(kind: string): Queue {
  const made = new Queue(`${kind}-${++queues}`, { connection: connection() });
  closers.push(() => made.close());
  return made;
}

/** An in-process worker of `of`, closed after the test (before the queues and Redis). */
function worker<Data, Result>(
  of: Queue,
  processor: (job: Job<Data, Result>, token?: string, signal?: AbortSignal) => Promise<Result>,
  options: { lockDuration?: number; stalledInterval?: number } = {},
): Worker<Data, Result> {
  const made = new Worker<Data, Result>(of.name, processor, { connection: connection(), ...options });
  closers.push(() => made.close(true));
  return made;
}

async function receiver(answer?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(answer);
  closers.push(() => started.close());
  return started;
}

/** The job once it completed or failed. */
async function settled(of: Queue, id: string): Promise<Job> {
  for (;;) {
    const state = await of.getJobState(id);
    // Read once it has settled: a job read before may have been read while it was still active.
    if (state === 'completed' || state === 'failed') return (await of.getJob(id)) as Job;
    await sleep(100);
  }
}

/** The event a request carried, verified by Standard Webhooks' reference implementation. */
const verified = (got: Received | undefined): VideoEvent =>
  new Webhook(SECRET).verify(got?.body as string, got?.headers as Record<string, string>) as VideoEvent;

describe('deliveries on real workers and Redis', () => {
  test('a video job with a notify URL: its receiver gets one video.completed, signed, of the saved video, without the key', {
    timeout: 60_000,
  }, async () => {
    const hooks = await receiver();
    const videos = queue('videos');
    const deliveries = queue('deliveries');
    const out = join(dir, 'completed');
    await mkdir(out);
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    worker(videos, createVideoProcessor(client, { outputDir: out, queue: videos, deliveryQueue: deliveries }));
    worker(deliveries, createDeliveryProcessor({ secret: SECRET, allowPrivateNotifyUrls: true }));

    const job = videoJob({ key: 'done', audio_reference: audio, image_reference: IMAGE }, { notifyUrl: `${hooks.origin}/hooks?t=1` });
    await videos.add(job.name, job.data, job.opts);
    const result = (await settled(videos, job.opts.jobId)).returnvalue as VideoJobResult;
    expect(result.status).toBe('saved');
    const delivery = await settled(
      deliveries,
      deliveryJob(await videoEvent({ ...VIDEO, id: result.videoId as string }), job.data.notifyUrl as string).opts.jobId,
    );
    expect(await delivery.getState()).toBe('completed');

    expect(hooks.received).toHaveLength(1);
    const event = verified(hooks.received[0]);
    expect(event).toMatchObject({ id: result.eventId, type: 'video.completed', data: { id: result.videoId, status: 'COMPLETE' } });
    expect(delivery.returnvalue).toEqual({ eventId: event.id, type: 'video.completed', status: 200 });
    const seen = JSON.stringify(hooks.received);
    expect(seen).not.toContain(mock.apiKey);
    expect(seen).not.toContain(SECRET.slice('whsec_'.length));
  });

  test("a video job whose video FAILED: its receiver gets video.failed, with the service's reason", { timeout: 60_000 }, async () => {
    const hooks = await receiver();
    const videos = queue('videos');
    const deliveries = queue('deliveries');
    const out = join(dir, 'failed');
    await mkdir(out);
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'invalid_audio', message: 'No speech found.' } });
    worker(videos, createVideoProcessor(client, { outputDir: out, queue: videos, deliveryQueue: deliveries }));
    worker(deliveries, createDeliveryProcessor({ secret: SECRET, allowPrivateNotifyUrls: true }));

    const job = videoJob({ key: 'bad', audio_reference: audio, image_reference: IMAGE }, { notifyUrl: `${hooks.origin}/hooks` });
    await videos.add(job.name, job.data, job.opts);
    const [got] = await hooks.waitFor(1);
    expect(verified(got)).toMatchObject({
      type: 'video.failed',
      data: { status: 'FAILED', error: { code: 'invalid_audio', message: 'No speech found.' } },
    });
  });

  test('a receiver answering 500 for 30 s gets the event after, every try with one webhook-id', { timeout: 150_000 }, async () => {
    let firstAt: number | undefined;
    const hooks = await receiver((_request, response) => {
      firstAt ??= Date.now();
      response.statusCode = Date.now() - firstAt < 30_000 ? 500 : 200;
      response.end();
    });
    const deliveries = queue('deliveries');
    worker(deliveries, createDeliveryProcessor({ secret: SECRET, allowPrivateNotifyUrls: true }));
    const event = await videoEvent(VIDEO);
    // The attempts and backoff deliveryJob sets: 15 tries, 2 s, 4 s, 8 s, 16 s, 32 s ... apart.
    const delivery = deliveryJob(event, `${hooks.origin}/hooks`);
    await deliveries.add(delivery.name, delivery.data, delivery.opts);

    const done = await settled(deliveries, delivery.opts.jobId);
    expect(await done.getState()).toBe('completed');
    expect(hooks.received.length).toBeGreaterThan(2);
    expect(new Set(hooks.received.map((got) => got.headers['webhook-id']))).toEqual(new Set([event.id]));
    // Each try is signed when it is made, so each verifies now-ish: the last, at least, arrived well after the first.
    expect(verified(hooks.received.at(-1))).toEqual(event);
    expect(done.attemptsMade).toBe(hooks.received.length);
  });

  test('a delivery worker SIGKILLed after it sent, before the answer: another sends it again, with the same webhook-id', {
    timeout: 120_000,
  }, async () => {
    const hosts: WorkerHost[] = [];
    closers.push(() => stopWorkerHosts(hosts));
    let onFirst: () => void;
    const first = new Promise<void>((resolve) => {
      onFirst = resolve;
    });
    const hooks = await receiver((_request, response) => {
      // The first try is never answered: its worker dies with it in hand.
      if (hooks.received.length === 1) onFirst();
      else response.end('ok');
    });
    const deliveries = queue('deliveries');
    // Short locks, so the killed worker's job is taken up within seconds (30 s by default).
    const killed = await startWorkerHost(DELIVERY_WORKER, [redis.path, deliveries.name, SECRET, '2000', '1000'], () => undefined);
    hosts.push(killed);
    const event = await videoEvent(VIDEO, { type: 'video.completed' });
    const delivery = deliveryJob(event, `${hooks.origin}/hooks`);
    await deliveries.add(delivery.name, delivery.data, delivery.opts);
    await first;
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(killed.child.signalCode).toBe('SIGKILL');

    worker(deliveries, createDeliveryProcessor({ secret: SECRET, allowPrivateNotifyUrls: true }), {
      lockDuration: 2_000,
      stalledInterval: 1_000,
    });
    const done = await settled(deliveries, delivery.opts.jobId);
    expect(await done.getState()).toBe('completed');
    expect(hooks.received.length).toBeGreaterThanOrEqual(2);
    expect(new Set(hooks.received.map((got) => got.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(verified(hooks.received.at(-1))).toEqual(event);
  });

  test('a notify URL on a loopback address, written out or resolved: refused in one try, with a failedReason that says why', {
    timeout: 60_000,
  }, async () => {
    const hooks = await receiver();
    const port = new URL(hooks.origin).port;
    const deliveries = queue('deliveries');
    worker(deliveries, createDeliveryProcessor({ secret: SECRET }));
    for (const [host, says] of [
      ['127.0.0.1', '127.0.0.1 is a loopback address'],
      ['localhost', /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
    ] as const) {
      const delivery = deliveryJob(await videoEvent(VIDEO), `http://${host}:${port}/hooks`);
      await deliveries.add(delivery.name, delivery.data, delivery.opts);
      const done = await settled(deliveries, delivery.opts.jobId);
      expect(await done.getState()).toBe('failed');
      expect(done.attemptsMade).toBe(1);
      expect(done.failedReason).toMatch(says);
      expect(done.failedReason).toContain('Set allowPrivateNotifyUrls');
    }
    expect(hooks.received).toEqual([]);
  });
});
