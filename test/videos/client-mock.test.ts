import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  AvatarVideo,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  toFile,
  UnprocessableEntityError,
} from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, readMockFixture, wav } from '../helpers/media.js';

const closers = useCleanup();
let mock: MockServer;
let client: AvatarVideo;
beforeEach(async () => {
  mock = await startMockServer({ clock: 'manual', processingMs: 1000 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', maxRetryDelay: 50 });
  closers.push(mock.close, () => client.close());
});

const image = () => mockFixture('portrait.png');
const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('operations against the mock', () => {
  it('creates from an image, polls to COMPLETE, and streams a real 9:16 MP4 from the CDN without the key', async () => {
    const created = await client.videos.create({ audio_reference: wav(2), image_reference: image() });
    expect(created).toMatchObject({ status: 'PROCESSING', progress: 0, generation_mode: 'image_to_video', aspect_ratio: '9:16' });
    expect(created.video_id).toBe(created.id);
    mock.advance(500);
    expect((await client.videos.retrieve(created.id)).progress).toBe(50);
    mock.advance(500);
    const done = await client.videos.retrieve(created.id);
    expect(done.status).toBe('COMPLETE');
    const content = await client.videos.content(created.id);
    const bytes = await readAll(content.body);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBe(content.contentLength);
    expect(content.contentType).toBe('video/mp4');
    expect(new URL(content.url).origin).toBe(mock.cdnURL);
    const cdnRequests = mock.requests.filter((r) => r.origin === 'cdn');
    expect(cdnRequests).toHaveLength(1);
    expect(cdnRequests.every((r) => !r.hasApiKey)).toBe(true);
  });

  it('creates from a video reference (video_to_video) with a chosen model', async () => {
    const created = await client.videos.create({
      audio_reference: wav(2),
      video_reference: mockFixture('ref-portrait-12s.mp4'),
      model: 'service-video-1-latest',
    });
    expect(created).toMatchObject({ generation_mode: 'video_to_video', model: 'service-video-1-latest', aspect_ratio: '9:16' });
  });

  it('uploads every input kind: path, file URL, Buffer, Blob, File, Node and web streams, toFile', async () => {
    const png = readMockFixture('portrait.png');
    const inputs = [
      mockFixture('portrait.png').pathname,
      mockFixture('portrait.png'),
      Buffer.from(png),
      new Blob([png]),
      new File([png], 'me.png'),
      Readable.from([Buffer.from(png)]),
      new Blob([png]).stream(),
      toFile(Readable.from([Buffer.from(png)]), 'face.png'),
    ];
    for (const input of inputs) {
      const video = await client.videos.create({ audio_reference: toFile(wav(1.5), 'voice.wav'), image_reference: input });
      expect(video.aspect_ratio).toBe('9:16');
    }
    expect(mock.creates).toBe(inputs.length);
  });

  it('lists one page, then every page', async () => {
    for (let i = 0; i < 5; i++) await client.videos.create({ audio_reference: wav(1), image_reference: image() });
    const page = await client.videos.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBeNull(); // the service answers a bare array: a full page may have more
    expect(page.hasNextPage()).toBe(true);
    const ids: string[] = [];
    for await (const video of client.videos.list({ limit: 2 })) ids.push(video.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect((await page.getNextPage()).data[0]?.id).toBe(ids[2]);
  });
});

describe('every error class from a real response', () => {
  it('400 BadRequestError for both visual references (validation off)', async () => {
    const error = await client.videos
      .create(
        // @ts-expect-error both visual references: a type error, sent anyway to see the server refuse it
        { audio_reference: wav(2), image_reference: image(), video_reference: mockFixture('ref-portrait-12s.mp4') },
        { validate: false },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe('multiple_visual_references');
    expect(error.requestId).toMatch(/^req_/);
  });

  it('401 AuthenticationError for a wrong key', async () => {
    const wrong = new AvatarVideo({ apiKey: 'wrong-key-000', baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => wrong.close());
    const error = await wrong.videos.retrieve('vid_x').catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('invalid_api_key');
  });

  it('403 PermissionDeniedError naming the gated preview', async () => {
    const preview = await startMockServer({ previewAccess: false });
    const gated = new AvatarVideo({ apiKey: preview.apiKey, baseURL: preview.baseURL, logLevel: 'off' });
    closers.push(preview.close, () => gated.close());
    const error = await gated.videos
      .create({ audio_reference: wav(2), video_reference: mockFixture('ref-portrait-12s.mp4') })
      .catch((e) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.message).toMatch(/gated preview/);
  });

  it('404 NotFoundError for an unknown video', async () => {
    await expect(client.videos.retrieve('vid_missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('409 ConflictError for content before COMPLETE', async () => {
    const video = await client.videos.create({ audio_reference: wav(2), image_reference: image() });
    const error = await client.videos.content(video.id, { maxRetries: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe('video_not_ready');
  });

  it('422 UnprocessableEntityError for an out-of-range duration (validation off)', async () => {
    const error = await client.videos.create({ audio_reference: wav(61), image_reference: image() }, { validate: false }).catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.code).toBe('duration_out_of_range');
  });

  // The mock's limit is its own (src/testing/rules.ts), not the client's: raising the client's passes local validation only.
  it('422 from the mock for 90 s of audio that a client with limits.maxAudioSeconds 180 validated', async () => {
    const wide = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off', limits: { maxAudioSeconds: 180 } });
    closers.push(() => wide.close());
    const error = await wide.videos.create({ audio_reference: wav(90), image_reference: image() }).catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.code).toBe('duration_out_of_range');
    expect(mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1); // sent: the SDK's own check let it through
  });

  it("422 UnprocessableEntityError with FastAPI's details for an unknown model (validation off)", async () => {
    const error = await client.videos
      // A model name the service does not know (the type allows future names; validation off lets it through).
      .create({ audio_reference: wav(2), image_reference: image(), model: 'service-avatar-9' }, { validate: false })
      .catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.details).toEqual([
      { location: 'body.model', message: "Input should be 'service-avatar-x' or 'service-video-1-latest'", type: 'literal_error' },
    ]);
    expect(error.message).toMatch(/^422: body\.model: Input should be 'service-avatar-x' or 'service-video-1-latest' \[request id req_/);
  });

  it('429 RateLimitError with retryAfter after retries run out', async () => {
    mock.failNext({ path: '/v1/videos/vid_1' }, { status: 429, headers: { 'retry-after': '0' }, times: 3 });
    const error = await client.videos.retrieve('vid_1').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(0);
    expect(mock.requests.filter((r) => r.path === '/v1/videos/vid_1')).toHaveLength(3);
  });

  it('5xx InternalServerError, and a create is not retried after a 500', async () => {
    mock.failNext({ method: 'POST' }, { status: 500, times: 1 });
    const error = await client.videos.create({ audio_reference: wav(2), image_reference: image() }).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toBeInstanceOf(APIError);
    expect(mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a create is retried after a 503 and creates exactly one job', async () => {
    mock.failNext({ method: 'POST' }, { status: 503, headers: { 'retry-after': '0' }, times: 1 });
    await client.videos.create({ audio_reference: wav(2), image_reference: image() });
    expect(mock.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(mock.creates).toBe(1);
  });
});
