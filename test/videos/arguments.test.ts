/**
 * Arguments as a JavaScript caller passes them, unchecked by any type (src/internal/arguments.ts): each wrong one
 * is a typed error that names the method and says what to pass, before any request, never a bare TypeError from
 * inside or a value that fails later in undici or a timer. And the id-taking methods accept a video object.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AvatarVideo, InvalidArgumentError, toFile, UploadInputError } from '../../src/index.js';
import { joinVideos, probeMedia, splitAudio, validateCreateParams } from '../../src/media/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { readMockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();
let server: Awaited<ReturnType<typeof rawServer>>;
// biome-ignore lint/suspicious/noExplicitAny: the client as JavaScript sees it, with no types to stop a wrong call.
let client: any;
let dir: string;

beforeAll(async () => {
  server = await rawServer((req, res) => {
    req.resume();
    if (req.url?.endsWith('/content')) return res.writeHead(302, { location: 'http://localhost:9/files/vid_7.mp4' }).end();
    json(res, 200, video('vid_7', { status: 'COMPLETE', progress: 100 }));
  });
  client = new AvatarVideo({ apiKey: 'key-arguments-1', baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  dir = await mkdtemp(join(tmpdir(), 'avatar-arguments-'));
  closers.push(
    server.close,
    () => client.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
});
beforeEach(() => {
  server.requests.length = 0;
});

const params = () => ({ audio_reference: wav(2), image_reference: readMockFixture('portrait.png') });
const done = video('vid_7', { status: 'COMPLETE', progress: 100 });

/** The call, what the error names and what its message says to pass. */
type Case = [call: () => unknown, argument: string, says: RegExp];

const refused: Record<string, Case> = {
  'generate without options': [() => client.videos.generate(params()), 'options', /videos\.generate: .*\{ output: 'video\.mp4' \}/],
  'generateBatch without options': [() => client.videos.generateBatch([]), 'options', /videos\.generateBatch: .*outputDir/],
  'generateLong without options': [() => client.videos.generateLong(params()), 'options', /videos\.generateLong: .*output/],
  'generateBatch without outputDir': [() => client.videos.generateBatch([], {}), 'outputDir', /the folder to save to/],
  'generateBatch of a string': [
    () => client.videos.generateBatch('a.wav', { outputDir: dir }),
    'items',
    /an array or an \(async\) iterable/,
  ],
  'download without a path': [() => client.videos.download('vid_bad'), 'path', /videos\.download: path .*'video\.mp4', got undefined/],
  'create with options null': [
    () => client.videos.create(params(), null),
    'options',
    /videos\.create: options must be an object, got null/,
  ],
  'create with params a string': [() => client.videos.create('speech.wav'), 'params', /\{ audio_reference: /],
  'createAndWait with options null': [() => client.videos.createAndWait(params(), null), 'options', /must be an object/],
  'list with params null': [() => client.videos.list(null), 'params', /videos\.list: params must be an object/],
  'retrieve of a number': [() => client.videos.retrieve(5), 'video', /a video id \(e\.g\. 'vid_123'\) or a video object, got 5/],
  "timeout '5s'": [() => client.videos.retrieve('vid_bad', { timeout: '5s' }), 'timeout', /number of milliseconds .*got "5s"/],
  'timeout NaN': [() => client.videos.content('vid_bad', { timeout: Number.NaN }), 'timeout', /got NaN/],
  'timeout -1': [() => client.videos.contentURL('vid_bad', { timeout: -1 }), 'timeout', /got -1/],
  "maxRetries 'x' (retried forever)": [() => client.videos.retrieve('vid_bad', { maxRetries: 'x' }), 'maxRetries', /whole number/],
  'maxRetryDelay -1': [() => client.videos.retrieve('vid_bad', { maxRetryDelay: -1 }), 'maxRetryDelay', /milliseconds/],
  "waitTimeout '500'": [() => client.videos.waitForCompletion('vid_bad', { waitTimeout: '500' }), 'waitTimeout', /got "500"/],
  "pollInterval '10'": [() => client.videos.createAndWait(params(), { pollInterval: '10' }), 'pollInterval', /milliseconds/],
  "maxResumes 'x'": [() => client.videos.download('vid_bad', join(dir, 'a.mp4'), { maxResumes: 'x' }), 'maxResumes', /whole/],
  "maxAttempts '3'": [() => client.videos.generateBatch([], { outputDir: dir, maxAttempts: '3' }), 'maxAttempts', /whole/],
  'onProgress not a function': [() => client.videos.waitForCompletion('vid_bad', { onProgress: true }), 'onProgress', /a function/],
  'signal not a signal': [() => client.videos.retrieve('vid_bad', { signal: 'stop' }), 'signal', /an AbortSignal/],
  'joinVideos of a string': [() => joinVideos('a.mp4' as never, join(dir, 'j.mp4')), 'inputs', /an array of MP4 file paths/],
  'joinVideos without output': [() => (joinVideos as (...args: unknown[]) => unknown)(['a.mp4']), 'output', /'joined\.mp4'/],
  "splitAudio maxSegmentSeconds '30'": [() => splitAudio('a.wav', { maxSegmentSeconds: '30' as never }), 'maxSegmentSeconds', /seconds/],
  'validateCreateParams of a string': [() => validateCreateParams('a.wav' as never), 'params', /must be an object/],
  'toFile without a name': [() => (toFile as (data: unknown) => unknown)(wav(1)), 'name', /toFile: name .*'speech\.wav'/],
};

describe('a wrong argument is an InvalidArgumentError saying what to pass, before any request', () => {
  it.each(Object.entries(refused))('%s', async (_, [call, argument, says]) => {
    const error = await Promise.resolve()
      .then(call)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument, message: expect.stringMatching(says) });
    expect(server.requests).toEqual([]);
  });

  it('rejects rather than throwing, as an async method does', () => {
    const pending = client.videos.generate(params());
    expect(pending).toBeInstanceOf(Promise);
    return expect(pending).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('refuses client options the same way, when the client is made', () => {
    const make = (options: unknown) => () => new AvatarVideo(options as never);
    const base = { apiKey: 'key-arguments-2', baseURL: server.url };
    expect(make(null)).toThrow(/new AvatarVideo: options must be an object, got null/);
    expect(make({ ...base, timeout: '5s' })).toThrow(/new AvatarVideo: timeout must be a number of milliseconds/);
    expect(make({ ...base, limits: { maxAudioSeconds: '180' } })).toThrow(InvalidArgumentError);
  });
});

describe('a URL string given as a file input', () => {
  it.each([
    ['create', () => client.videos.create({ ...params(), audio_reference: 'https://files.example/speech.wav?sig=secret' })],
    ['probeMedia', () => probeMedia('http://files.example/me.png')],
    ['splitAudio', () => splitAudio('HTTPS://files.example/talk.wav')],
  ])('%s: an UploadInputError saying to download it first, naming no more than the scheme', async (_, call) => {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadInputError);
    expect((error as Error).message).toMatch(/is a URL \(https?:\)\. Download it first, or pass a stream\./);
    expect((error as Error).message).not.toMatch(/files\.example|secret|ENOENT/);
    expect(server.requests).toEqual([]);
  });

  it('a file: URL string is the file it names', async () => {
    const path = join(dir, 'speech.wav');
    await writeFile(path, wav(2));
    await expect(probeMedia(pathToFileURL(path).href)).resolves.toMatchObject({ kind: 'audio', format: 'wav' });
  });
});

describe('the methods that take an id take a video object too, as download does', () => {
  it('waitForCompletion, retrieve, content and contentURL use its id', async () => {
    await expect(client.videos.waitForCompletion(done, { pollInterval: 10 })).resolves.toMatchObject({ status: 'COMPLETE' });
    await expect(client.videos.retrieve(done)).resolves.toMatchObject({ id: 'vid_7' });
    await expect(client.videos.contentURL(done)).resolves.toBe('http://localhost:9/files/vid_7.mp4');
    await client.videos.content(done, { maxRetries: 0 }).catch(() => undefined); // the file host is not there
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/videos/vid_7',
      '/v1/videos/vid_7',
      '/v1/videos/vid_7/content',
      '/v1/videos/vid_7/content',
    ]);
  });

  it('a video object without an id is refused', async () => {
    await expect(client.videos.waitForCompletion({ status: 'COMPLETE' })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      message: expect.stringMatching(/videos\.waitForCompletion: video must be a video id .* got an object/),
    });
  });
});
