/**
 * The events of video jobs: `videoJob(item, { notifyUrl })` and the processor's `deliveryQueue`, against the mock,
 * with a fake BullMQ job and fake queues: which delivery the processor adds when a job settles, and when it adds
 * none. The deliveries sent over real workers and a real Redis: test/bullmq/webhook-deliveries.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createVideoProcessor,
  type DeliveryJobData,
  type DeliveryQueue,
  deliveryJob,
  type GeneratingClient,
  type VideoJobData,
  type VideoProcessorOptions,
  videoJob,
} from '../../src/bullmq/index.js';
import { AvatarVideo, InvalidArgumentError, type VideoCreateParams } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
let audio: string;
const IMAGE = fileURLToPath(mockFixture('portrait.png'));
const HOOK = 'https://hooks.example.com/video?token=t0k3n';

const closers = useCleanup();
beforeAll(async () => {
  mock = await startMockServer({ processingMs: 100 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-bullmq-events-'));
  closers.push(
    () => mock.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  audio = join(dir, 'speech.wav');
  await writeFile(audio, wav(1));
});
beforeEach(() => {
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(() => client.close());
  mock.reset();
});

/** A BullMQ job as the processor sees it: data, its updates, and its attempts so far of `attempts`. */
function fakeJob(data: VideoJobData, attempt = { attemptsMade: 0, attempts: 5 }) {
  const job = {
    data,
    attemptsMade: attempt.attemptsMade,
    opts: { attempts: attempt.attempts },
    async updateData(next: VideoJobData) {
      job.data = next;
    },
    async updateProgress() {},
  };
  return job;
}

/** A delivery queue that records each `add(name, data, opts)`. */
function fakeDeliveries() {
  const added: Array<{ name: string; data: DeliveryJobData; opts: unknown }> = [];
  const add = async (name: string, data: DeliveryJobData, opts: unknown) => void added.push({ name, data, opts });
  return { added, add: add as unknown as DeliveryQueue['add'] };
}

const fakeQueue = () => ({ rateLimit: async () => undefined });
/** A job's data for `key`, with the notify URL given (`HOOK` unless said; none for null). */
const item = (key: string, notifyUrl: string | null = HOOK) =>
  videoJob({ key, audio_reference: audio, image_reference: IMAGE }, notifyUrl === null ? {} : { notifyUrl }).data;

function processor(options: Partial<VideoProcessorOptions> = {}, using: GeneratingClient = client) {
  return createVideoProcessor(using, { outputDir: dir, queue: fakeQueue(), maxJobAttempts: 1, ...options });
}

describe('videoJob with a notify URL', () => {
  it('stores it in the job data, as URL parsing writes it', () => {
    expect(item('a', 'HTTPS://Hooks.Example.com:443/v?x=1').notifyUrl).toBe('https://hooks.example.com/v?x=1');
    expect(item('b', null)).not.toHaveProperty('notifyUrl');
  });

  it('refuses a URL that is not http(s), holds a password, or is not one', () => {
    for (const notifyUrl of ['file:///etc/passwd', 'ftp://example.com/', 'https://user:pw@example.com/', 'not a url', '']) {
      expect(() => item('k', notifyUrl)).toThrow(expect.objectContaining({ argument: 'notifyUrl' }));
    }
    expect(() => videoJob({ key: 'k', audio_reference: 'a.wav', image_reference: 'i.png' }, 'https://x.example/' as never)).toThrow(
      InvalidArgumentError,
    );
  });

  it('still works as the callback of map, which passes an index', () => {
    const items = [0, 1].map((i) => ({ key: `item-${i}`, audio_reference: 'a.wav', image_reference: 'i.png' }));
    expect(items.map(videoJob)).toEqual(items.map((one) => videoJob(one)));
  });
});

describe('the processor, for a job with a notify URL', () => {
  it('fails it at its start without a deliveryQueue, before any create', async () => {
    const error = await processor()(fakeJob(item('no-queue'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument: 'deliveryQueue', message: expect.stringContaining('"no-queue" has a notifyUrl') });
    expect(mock.requests).toEqual([]);
  });

  it('once saved, adds one video.completed before it finishes: the saved video, as deliveryJob gives it; the URL never goes to the service', async () => {
    const sent: VideoCreateParams[] = [];
    const recording: GeneratingClient = {
      videos: {
        generate: (params, options) => {
          sent.push(params);
          return client.videos.generate(params, options);
        },
      },
    };
    const deliveries = fakeDeliveries();
    const result = await processor({ deliveryQueue: deliveries }, recording)(fakeJob(item('saved')));
    expect(result).toMatchObject({ status: 'saved', videoId: expect.stringMatching(/^vid_/) });
    expect(deliveries.added).toHaveLength(1);
    const [added] = deliveries.added;
    const event = added?.data.event;
    expect(event).toMatchObject({ type: 'video.completed', data: { id: result.videoId, status: 'COMPLETE' } });
    expect(added).toEqual(deliveryJob(event as DeliveryJobData['event'], HOOK));
    expect(result.eventId).toBe(event?.id);
    expect(JSON.stringify(sent)).not.toContain('hooks.example.com');
    expect(JSON.stringify(added)).not.toContain(mock.apiKey);
  });

  it('fails the attempt when the delivery cannot be added: the job runs again rather than finishing without its event', async () => {
    const broken = { add: (async () => Promise.reject(new Error('redis is gone'))) as DeliveryQueue['add'] };
    await expect(processor({ deliveryQueue: broken })(fakeJob(item('unsent')))).rejects.toThrow('redis is gone');
  });

  it('a video FAILED for its inputs: video.failed at once, whatever attempts are left', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'invalid_audio', message: 'No speech found.' } });
    const deliveries = fakeDeliveries();
    await expect(processor({ deliveryQueue: deliveries })(fakeJob(item('bad-input')))).rejects.toThrow('invalid_audio');
    expect(deliveries.added.map((added) => added.data.event)).toEqual([
      expect.objectContaining({ type: 'video.failed', data: expect.objectContaining({ status: 'FAILED', error: expect.anything() }) }),
    ]);
  });

  it('a video FAILED for a fault of the service, or a rate limit: nothing while a later attempt would make it again; video.failed on the last', async () => {
    for (const code of ['internal_error', 'rate_limit_exceeded']) {
      const deliveries = fakeDeliveries();
      const run = processor({ deliveryQueue: deliveries });
      mock.enqueueOutcome({ status: 'FAILED', error: { code, message: 'Try again.' } });
      await expect(run(fakeJob(item(`again-${code}`), { attemptsMade: 3, attempts: 5 }))).rejects.toThrow(code);
      expect(deliveries.added).toEqual([]);
      mock.enqueueOutcome({ status: 'FAILED', error: { code, message: 'Try again.' } });
      await expect(run(fakeJob(item(`last-${code}`), { attemptsMade: 4, attempts: 5 }))).rejects.toThrow(code);
      expect(deliveries.added.map((added) => added.data.event.type)).toEqual(['video.failed']);
    }
  });

  it('a video CANCELLED: video.cancelled', async () => {
    mock.enqueueOutcome({ status: 'CANCELLED' });
    const deliveries = fakeDeliveries();
    await expect(processor({ deliveryQueue: deliveries })(fakeJob(item('cancelled')))).rejects.toThrow('was cancelled');
    expect(deliveries.added.map((added) => added.data.event)).toEqual([
      expect.objectContaining({ type: 'video.cancelled', data: expect.objectContaining({ status: 'CANCELLED' }) }),
    ]);
  });

  it('a file a dead attempt saved: the next adds the same delivery (same jobId, same event id), the video read back', async () => {
    const first = fakeDeliveries();
    const job = fakeJob(item('crashed'));
    await processor({ deliveryQueue: first })(job);
    // The next attempt after a crash between saving and finishing: the data holds the id, the file is there.
    const again = fakeDeliveries();
    const result = await processor({ deliveryQueue: again })(fakeJob(job.data));
    expect(result).toMatchObject({ status: 'skipped', videoId: job.data.videoId, eventId: first.added[0]?.data.event.id });
    expect(again.added).toHaveLength(1);
    expect(again.added[0]?.opts).toEqual(first.added[0]?.opts);
    expect(again.added[0]?.data.event).toMatchObject({
      id: first.added[0]?.data.event.id,
      type: 'video.completed',
      data: { id: job.data.videoId },
    });
    expect(mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${job.data.videoId}`).length).toBeGreaterThan(0);
  });

  it('a file that was there before the job made a video: skipped, and no event (there is no video to tell of)', async () => {
    await writeFile(join(dir, 'before.mp4'), 'saved before');
    const deliveries = fakeDeliveries();
    const result = await processor({ deliveryQueue: deliveries })(fakeJob(item('before')));
    expect(result).toMatchObject({ status: 'skipped', videoId: undefined });
    expect(result).not.toHaveProperty('eventId');
    expect(deliveries.added).toEqual([]);
    expect(mock.requests).toEqual([]);
  });

  it('a saved file with a stored id and a client without videos.retrieve: says what it needs', async () => {
    await writeFile(join(dir, 'no-retrieve.mp4'), 'saved before');
    const generateOnly: GeneratingClient = { videos: { generate: (params, options) => client.videos.generate(params, options) } };
    const run = processor({ deliveryQueue: fakeDeliveries() }, generateOnly);
    await expect(run(fakeJob({ ...item('no-retrieve'), videoId: 'vid_0123' }))).rejects.toThrow(/needs client\.videos\.retrieve/);
  });
});
