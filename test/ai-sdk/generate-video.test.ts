/**
 * avatar-video/ai-sdk under the real `ai` (the pinned devDependency): experimental_generateVideo,
 * experimental_startVideo and experimental_getVideoStatus with this provider, against the mock on loopback sockets.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { experimental_generateVideo, experimental_getVideoStatus, experimental_startVideo } from 'ai';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAvatarVideo } from '../../src/ai-sdk/index.js';
import { APIUserAbortError, AvatarVideo, InvalidArgumentError, MediaValidationError, VideoFailedError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { probeStreams } from '../helpers/ffprobe.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture, wav } from '../helpers/media.js';

let mock: MockServer;
let slow: MockServer;
let client: AvatarVideo;
let dir: string;
const IMAGE = readMockFixture('portrait.png');
const VIDEO_REFERENCE = readMockFixture('ref-portrait-12s.mp4');
const AUDIO = wav(2);

const closers = useCleanup();
beforeAll(async () => {
  // The core logs each warning to the console; these tests read them from the result.
  const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  const logging = global.AI_SDK_LOG_WARNINGS;
  global.AI_SDK_LOG_WARNINGS = false;
  closers.push(() => {
    global.AI_SDK_LOG_WARNINGS = logging;
  });
  mock = await startMockServer({ processingMs: 200 });
  slow = await startMockServer({ processingMs: 60_000 });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'avatar-ai-sdk-'));
  closers.push(
    () => client.close(),
    () => mock.close(),
    () => slow.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
});
beforeEach(() => mock.reset());

const model = (id = 'service-avatar-x') => createAvatarVideo({ client })(id);

/** What ffprobe reads in `bytes`: the streams' codec types (test/helpers/ffprobe.ts, which says how to install it). */
async function ffprobeStreams(bytes: Uint8Array): Promise<string[]> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, bytes);
  return (await probeStreams(file)).map((stream) => stream.codec_type);
}

describe('experimental_generateVideo', () => {
  it('returns the MP4, checked and readable by ffprobe, with the job in providerMetadata', async () => {
    const result = await experimental_generateVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO] });
    expect(result.video.mediaType).toBe('video/mp4');
    expect(await ffprobeStreams(result.video.uint8Array)).toContain('video');
    const meta = result.providerMetadata.avatarVideo as Record<string, unknown>;
    expect(meta).toMatchObject({ model: 'service-avatar-x', generationMode: 'image_to_video', aspectRatio: '9:16' });
    expect(mock.getVideo(meta.videoId as string)?.status).toBe('COMPLETE');
    expect(mock.creates).toBe(1);
    expect(result.warnings).toEqual([]);
  });

  it('waits through a job QUEUED before it runs', async () => {
    const queued = await startMockServer({ processingMs: 500, queuedMs: 250 });
    const queuedClient = new AvatarVideo({ apiKey: queued.apiKey, baseURL: queued.baseURL, logLevel: 'off' });
    closers.push(
      () => queuedClient.close(),
      () => queued.close(),
    );
    const result = await experimental_generateVideo({
      model: createAvatarVideo({ client: queuedClient })('service-avatar-x'),
      prompt: { image: IMAGE },
      inputReferences: [AUDIO],
    });
    expect(result.video.mediaType).toBe('video/mp4');
    const { videoId } = result.providerMetadata.avatarVideo as { videoId: string };
    expect(queued.requests.filter((r) => r.path === `/v1/videos/${videoId}`).length).toBeGreaterThan(1);
    expect(queued.creates).toBe(1);
  });

  it('sorts the inputs by their bytes, not their declared types: a video reference among inputReferences', async () => {
    const result = await experimental_generateVideo({
      model: model('service-video-1-latest'),
      prompt: '',
      inputReferences: [
        { data: AUDIO, mediaType: 'image/png' },
        { data: VIDEO_REFERENCE, mediaType: 'audio/wav' },
      ],
    });
    expect(result.providerMetadata.avatarVideo).toMatchObject({ model: 'service-video-1-latest', generationMode: 'video_to_video' });
  });

  it('makes one job per video: n: 2 is two creates', async () => {
    const result = await experimental_generateVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO], n: 2 });
    expect(result.videos).toHaveLength(2);
    expect(mock.creates).toBe(2);
  });

  it('warns of each setting a job cannot honour, and still makes the video', async () => {
    const result = await experimental_generateVideo({
      model: model(),
      prompt: { image: IMAGE, text: 'smile' },
      inputReferences: [AUDIO],
      duration: 5,
      fps: 30,
      seed: 7,
      generateAudio: true,
      aspectRatio: '16:9',
      resolution: '1920x1080',
    });
    const features = result.warnings.map((warning) => (warning as { feature?: string }).feature);
    expect(features.sort()).toEqual(['aspectRatio', 'duration', 'fps', 'generateAudio', 'prompt', 'resolution', 'seed']);
    expect(mock.creates).toBe(1);
  });

  it('warns of a last frame and honours what matches: 9:16 at 720x1280 from a portrait reference', async () => {
    // The core drops inputReferences beside frameImages, so the model is called as the core calls it, with both.
    const image = { type: 'file', mediaType: 'image/png', data: IMAGE } as const;
    const started = await model().doStart({
      prompt: undefined,
      n: 1,
      aspectRatio: '9:16',
      resolution: '720x1280',
      duration: undefined,
      fps: undefined,
      seed: undefined,
      image,
      frameImages: [
        { image, frameType: 'first_frame' },
        { image, frameType: 'last_frame' },
      ],
      inputReferences: [{ type: 'file', mediaType: 'audio/wav', data: AUDIO }],
      generateAudio: undefined,
      providerOptions: {},
    });
    expect(started.warnings.map((warning) => (warning as { feature?: string }).feature)).toEqual(['frameImages']);
    expect(mock.creates).toBe(1);
  });

  it('throws VideoFailedError with the job id, once: the core does not retry it', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_detected', message: 'No face found.' } });
    const error = await experimental_generateVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VideoFailedError);
    expect((error as VideoFailedError).videoId).toMatch(/\S/);
    expect(mock.creates).toBe(1);
  });

  it("makes a job FAILED for a rate limit again through the job runner, and returns the second job's video", async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Too many jobs.' } });
    const result = await experimental_generateVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO] });
    expect(mock.creates).toBe(2);
    const [second, first] = mock.state.listVideos();
    expect(first?.status).toBe('FAILED');
    expect(second?.status).toBe('COMPLETE');
    expect(result.providerMetadata.avatarVideo).toMatchObject({ videoId: second?.id });
    expect(await ffprobeStreams(result.video.uint8Array)).toContain('video');
  });

  it('refuses an 89 s audio locally with MediaValidationError: no create', async () => {
    const error = await experimental_generateVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [wav(89)] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MediaValidationError);
    expect(mock.creates).toBe(0);
  });

  it('refuses a URL input with InvalidArgumentError, and unknown provider options: no create', async () => {
    const url = await experimental_generateVideo({
      model: model(),
      prompt: { image: 'https://example.com/me.png' },
      inputReferences: [AUDIO],
    }).catch((e: unknown) => e);
    expect(url).toBeInstanceOf(InvalidArgumentError);
    expect((url as Error).message).toMatch(/URL/);
    const options = await experimental_generateVideo({
      model: model(),
      prompt: { image: IMAGE },
      inputReferences: [AUDIO],
      providerOptions: { avatarVideo: { waitTimout: 5 } },
    }).catch((e: unknown) => e);
    expect(options).toBeInstanceOf(InvalidArgumentError);
    expect((options as Error).message).toMatch(/waitTimout/);
    expect(mock.creates).toBe(0);
  });

  it('takes model and waitTimeout from providerOptions.avatarVideo', async () => {
    const result = await experimental_generateVideo({
      model: model(),
      prompt: { image: IMAGE },
      inputReferences: [AUDIO],
      providerOptions: { avatarVideo: { model: 'service-video-1-latest', waitTimeout: 30_000, validate: true } },
    });
    expect(result.providerMetadata.avatarVideo).toMatchObject({ model: 'service-video-1-latest' });
  });

  it('names the job when aborted after its create', async () => {
    const slowClient = new AvatarVideo({ apiKey: slow.apiKey, baseURL: slow.baseURL, logLevel: 'off' });
    closers.push(() => slowClient.close());
    const before = slow.creates;
    const controller = new AbortController();
    const call = experimental_generateVideo({
      model: createAvatarVideo({ client: slowClient }).video('service-avatar-x'),
      prompt: { image: IMAGE },
      inputReferences: [AUDIO],
      abortSignal: controller.signal,
    }).catch((e: unknown) => e);
    while (slow.creates === before) await sleep(10);
    controller.abort();
    const error = (await call) as APIUserAbortError;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.videoId).toMatch(/\S/);
    expect(error.message).toContain(error.videoId as string);
  });

  it('runs the core poll loop over doStart/doStatus when poll is passed', async () => {
    const result = await experimental_generateVideo({
      model: model(),
      prompt: { image: IMAGE },
      inputReferences: [AUDIO],
      poll: { intervalMs: 50 },
    });
    expect(await ffprobeStreams(result.video.uint8Array)).toContain('video');
    expect(mock.creates).toBe(1);
  });
});

describe('experimental_startVideo and experimental_getVideoStatus', () => {
  it('start, then status across a JSON round trip, pending then completed with the checked MP4', async () => {
    const started = await experimental_startVideo({ model: model(), prompt: { image: IMAGE, text: 'hi' }, inputReferences: [AUDIO] });
    expect(started.warnings.map((warning) => (warning as { feature?: string }).feature)).toEqual(['prompt']);
    const operation = JSON.parse(JSON.stringify(started.operation));
    expect(operation).toEqual({ videoId: expect.any(String) });
    // Another provider, as another process would make.
    const other = createAvatarVideo({ client }).videoModel('service-avatar-x');
    const first = await experimental_getVideoStatus(other, { operation });
    expect(first.status).toBe('pending');
    let status = first;
    while (status.status === 'pending') {
      await sleep(50);
      status = await experimental_getVideoStatus(other, { operation });
    }
    expect(status.status).toBe('completed');
    if (status.status !== 'completed') return;
    const video = status.videos[0];
    expect(video?.type).toBe('binary');
    expect(await ffprobeStreams((video as { data: Uint8Array }).data)).toContain('video');
    expect(mock.creates).toBe(1);
  });

  it('reports a FAILED job as an error status naming it', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_detected', message: 'No face found.' } });
    const { operation } = await experimental_startVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO] });
    const id = (operation as { videoId: string }).videoId;
    let status = await experimental_getVideoStatus(model(), { operation });
    while (status.status === 'pending') {
      await sleep(50);
      status = await experimental_getVideoStatus(model(), { operation });
    }
    expect(status).toMatchObject({ status: 'error', error: expect.stringContaining(id) });
    expect(status.status === 'error' && status.error).toContain('face_not_detected');
  });

  it('a QUEUED job, or one in a status no one knows yet, is pending; then completed', async () => {
    const { operation } = await experimental_startVideo({ model: model(), prompt: { image: IMAGE }, inputReferences: [AUDIO] });
    const id = (operation as { videoId: string }).videoId;
    for (const status of ['QUEUED', 'SCHEDULED']) {
      mock.setVideo(id, { status, progress: null });
      expect((await experimental_getVideoStatus(model(), { operation })).status).toBe('pending');
    }
    mock.setVideo(id, { status: 'COMPLETE', progress: 100 });
    expect((await experimental_getVideoStatus(model(), { operation })).status).toBe('completed');
  });

  it('refuses an operation it did not start', async () => {
    await expect(experimental_getVideoStatus(model(), { operation: { id: 'x' } })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
