/**
 * No job is paid for in vain, and none is lost: `generate` and `generateLong` check where they will save before
 * creating anything, and every error after a create carries the job's `videoId` and names it, with the call that
 * goes on, even with logging off.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APIError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideo,
  AvatarVideoError,
  OutputPathError,
  VideoFailedError,
} from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, speechLikeWav, wav } from '../helpers/media.js';

let mock: MockServer;
let client: AvatarVideo;
let dir: string;
const closers = useCleanup();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-billed-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

/** A mock whose jobs take `processingMs`, and a client that logs nothing: the error alone must name the job. */
async function setup(processingMs: number) {
  mock = await startMockServer({ processingMs });
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  const [opened, server] = [client, mock];
  closers.push(
    () => opened.close(),
    () => server.close(),
  );
}

const params = () => ({ audio_reference: wav(2), image_reference: mockFixture('portrait.png') });
const creates = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos');
const fast = { pollInterval: 10, maxPollInterval: 20 };

describe('the destination is checked before any job is created', () => {
  it('generate into a folder that does not exist: OutputPathError, no create sent', async () => {
    await setup(0);
    const output = join(dir, 'no', 'such', 'x.mp4');
    const error = await client.videos.generate(params(), { output, ...fast }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputPathError);
    expect(error).toMatchObject({ code: 'folder_missing', path: output });
    expect(creates()).toEqual([]);
  });

  it('generate to a path that is a folder: OutputPathError, no create sent', async () => {
    await setup(0);
    const error = await client.videos.generate(params(), { output: dir, ...fast }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputPathError);
    expect(error).toMatchObject({ code: 'is_folder', path: dir });
    expect((error as Error).message).toContain('No job was created');
    expect(creates()).toEqual([]);
  });

  it('generate to a 5,000-character output: a short message that still names the file, the whole path as a field', async () => {
    await setup(0);
    const output = join(dir, `${'deep/'.repeat(1000)}video.mp4`);
    const error = await client.videos.generate(params(), { output, ...fast }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OutputPathError', code: 'folder_missing', path: output });
    const { message } = error as Error;
    expect(message.length).toBeLessThan(600);
    expect(message).toMatch(/^Cannot save to .*….*\/deep\/video\.mp4: /);
    expect(creates()).toEqual([]);
  });

  it('generate to a path no file can have (a NUL byte, a name too long for the save): OutputPathError, no create sent', async () => {
    await setup(0);
    // 244 bytes fit in a name; the temporary file written beside it first (19 bytes longer) does not.
    for (const name of ['bad\0name.mp4', `${'v'.repeat(300)}.mp4`, `${'w'.repeat(240)}.mp4`]) {
      const error = await client.videos.generate(params(), { output: join(dir, name), ...fast }).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(OutputPathError);
      expect(error, name).toMatchObject({ code: 'invalid', reason: expect.stringMatching(/NUL byte|too long/) });
    }
    expect(creates()).toEqual([]);
  });

  it('generate without an output (a JavaScript caller): OutputPathError, no create sent', async () => {
    await setup(0);
    const options = { ...fast } as unknown as { output: string };
    await expect(client.videos.generate(params(), options)).rejects.toMatchObject({ name: 'OutputPathError', code: 'invalid' });
    expect(creates()).toEqual([]);
  });

  it('generateLong with its output in a folder that does not exist: no create, no work folder made', async () => {
    await setup(0);
    const audio = join(dir, 'talk.wav');
    await writeFile(audio, speechLikeWav(100));
    const output = join(dir, 'missing', 'long.mp4');
    const error = await client.videos
      .generateLong({ audio_reference: audio, image_reference: mockFixture('portrait.png') }, { output, ...fast })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputPathError);
    expect(error).toMatchObject({ code: 'folder_missing' });
    expect(creates()).toEqual([]);
    // The default work folder sits beside the output: making it must not make the output's folder either.
    await expect(readFile(join(dir, 'missing', '.long.mp4.parts', 'manifest.json'))).rejects.toThrow();
  });

  it('generateLong with a workDir that cannot be a folder (a file is there): no create', async () => {
    await setup(0);
    const audio = join(dir, 'talk.wav');
    await writeFile(audio, speechLikeWav(100));
    const workDir = join(dir, 'work');
    await writeFile(workDir, 'a file, not a folder');
    const error = await client.videos
      .generateLong(
        { audio_reference: audio, image_reference: mockFixture('portrait.png') },
        { output: join(dir, 'long.mp4'), workDir, ...fast },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputPathError);
    expect(error).toMatchObject({ path: workDir });
    expect(creates()).toEqual([]);
  });

  it('generateLong creates a missing workDir, as its TSDoc says', async () => {
    await setup(0);
    const workDir = join(dir, 'deep', 'work');
    await client.videos.generateLong(
      { audio_reference: speechLikeWav(70), image_reference: mockFixture('portrait.png') },
      { output: join(dir, 'long.mp4'), workDir, keepWorkDir: true, ...fast },
    );
    expect(JSON.parse(await readFile(join(workDir, 'manifest.json'), 'utf8')).segments).toHaveLength(2);
  });
});

describe('every error after a create names the job, with logging off', () => {
  it('an abort during the wait: videoId and the calls that go on, in the message', async () => {
    await setup(60_000);
    const controller = new AbortController();
    const error = await client.videos
      .generate(params(), { output: join(dir, 'out.mp4'), ...fast, signal: controller.signal, onProgress: () => controller.abort() })
      .catch((e: unknown) => e);
    const [created] = mock.state.listVideos();
    const id = created?.id as string;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).videoId).toBe(id);
    expect((error as Error).message).toContain(`call videos.waitForCompletion('${id}') then videos.download('${id}', path)`);
    expect((error as Error).stack).toContain(`videos.waitForCompletion('${id}')`);
  });

  it('a failing content request: a COMPLETE job, named with the download that saves it', async () => {
    await setup(0);
    mock.failNext({ method: 'GET', path: /\/content$/ }, { status: 403, times: 10 });
    const error = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), ...fast }).catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).videoId).toBe(id);
    expect((error as APIError).message).toContain(`Video ${id} is COMPLETE but was not saved: call videos.download('${id}', path)`);
    expect((error as APIError).toJSON()).toMatchObject({ videoId: id, status: 403 });
  });

  it('a disk error while saving: an SDK error naming the job, the system error as cause', async () => {
    await setup(0);
    const folder = join(dir, 'gone');
    await mkdir(folder);
    const error = await client.videos
      .generate(params(), {
        output: join(folder, 'out.mp4'),
        ...fast,
        // The folder vanishes once the job is COMPLETE, between the check and the save.
        onProgress: (video) => video.status === 'COMPLETE' && rmSync(folder, { recursive: true }),
      })
      .catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect((error as AvatarVideoError).videoId).toBe(id);
    expect((error as Error).message).toContain(`videos.download('${id}', path)`);
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a 401 during the wait carries videoId, in toJSON too', async () => {
    await setup(60_000);
    mock.failNext({ method: 'GET', path: /^\/v1\/videos\/[^/]+$/ }, { status: 401 });
    const error = await client.videos.createAndWait(params(), fast).catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).videoId).toBe(id);
    expect((error as Error).message).toContain(`call videos.waitForCompletion('${id}')`);
    expect((error as Error).message).not.toContain('videos.download');
    expect((error as AuthenticationError).toJSON().videoId).toBe(id);
  });

  it('an error that is not the SDK’s (a callback’s TypeError) is wrapped, with videoId and the original as cause', async () => {
    await setup(60_000);
    const thrown = new TypeError('bad callback');
    const error = await client.videos
      .createAndWait(params(), {
        ...fast,
        onProgress: () => {
          throw thrown;
        },
      })
      .catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect((error as AvatarVideoError).videoId).toBe(id);
    expect((error as Error).cause).toBe(thrown);
    expect((error as Error).message).toMatch(new RegExp(`^bad callback\\. Video ${id} was created`));
  });

  it('a job that FAILED carries videoId, with no call to go on (there is none)', async () => {
    await setup(0);
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'bad_audio', message: 'no speech' } });
    const error = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), ...fast }).catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(VideoFailedError);
    expect((error as VideoFailedError).videoId).toBe(id);
    expect((error as Error).message).toBe(`Video ${id} failed (bad_audio): no speech`);
  });

  it('generateLong of short audio passes generate’s error on, its advice given once', async () => {
    await setup(60_000);
    mock.failNext({ method: 'GET', path: /^\/v1\/videos\/[^/]+$/ }, { status: 401 });
    const error = await client.videos.generateLong(params(), { output: join(dir, 'short.mp4'), ...fast }).catch((e: unknown) => e);
    const id = mock.state.listVideos()[0]?.id as string;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).videoId).toBe(id);
    expect((error as Error).message.split(`videos.waitForCompletion('${id}') then videos.download('${id}', path)`)).toHaveLength(2);
  });

  it('generateLong: a segment’s error carries its job, and the message lists the jobs the rerun takes up', async () => {
    await setup(1_000);
    const workDir = join(dir, 'work');
    let second: string | undefined;
    const error = await client.videos
      .generateLong(
        { audio_reference: speechLikeWav(100), image_reference: mockFixture('portrait.png') },
        {
          output: join(dir, 'long.mp4'),
          workDir,
          concurrency: 2,
          ...fast,
          // Once the second segment's job exists, its next poll is refused: the error is that segment's, not the first's.
          onProgress: ({ segments }) => {
            const jobId = segments[1]?.jobId;
            if (jobId && second === undefined) {
              second = jobId;
              mock.failNext({ method: 'GET', path: `/v1/videos/${jobId}` }, { status: 401 });
            }
          },
        },
      )
      .catch((e: unknown) => e);
    const manifest = JSON.parse(await readFile(join(workDir, 'manifest.json'), 'utf8'));
    const jobIds: string[] = manifest.segments.map((s: { jobId: string }) => s.jobId);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).videoId).toBe(second);
    expect(jobIds).toEqual([expect.any(String), second]);
    expect((error as Error).message).toContain(
      `jobs (${jobIds.join(', ')}) are recorded in ${workDir}: run the same generateLong call again`,
    );
  });
});
