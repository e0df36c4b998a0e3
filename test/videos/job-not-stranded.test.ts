/**
 * A job the user paid for is never stranded: when `createAndWait` or `generate` fails after the create with
 * an error that does not carry the video, the warning names the job and the call that goes on with it, and so
 * does the error (test/job-not-billed.test.ts checks it with logging off).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { APIError, APIUserAbortError, AvatarVideo, VideoFailedError } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';

let mock: MockServer;
let client: AvatarVideo;
let warnings: string[];
let dir: string;
const closers = useCleanup();
beforeEach(async () => {
  warnings = [];
  dir = await mkdtemp(join(tmpdir(), 'avatar-stranded-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

/** A mock whose jobs take `processingMs`, and a client whose warnings land in `warnings`. */
async function setup(processingMs: number) {
  mock = await startMockServer({ processingMs });
  const logger = { debug() {}, info() {}, warn: (line: string) => warnings.push(line), error() {} };
  client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logger });
  const [opened, server] = [client, mock];
  closers.push(
    () => opened.close(),
    () => server.close(),
  );
}

const params = () => ({ audio_reference: wav(2), image_reference: mockFixture('portrait.png') });

it('createAndWait stopped during the wait warns with the job id and how to wait for it again', async () => {
  await setup(60_000);
  const controller = new AbortController();
  let id: string | undefined;
  const error = await client.videos
    .createAndWait(params(), {
      signal: controller.signal,
      onProgress: (video) => {
        id = video.id;
        controller.abort();
      },
    })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect((error as APIUserAbortError).videoId).toBe(id);
  expect(mock.getVideo(id as string)?.status).toBe('PROCESSING');
  expect(warnings).toHaveLength(1);
  // No call syntax: the CLI, which prints its own command to go on, shows this line too.
  expect(warnings[0]).toMatch(new RegExp(`video ${id} was created, .*wait for it again by its id$`));
});

it('generate whose download fails warns with the job id; its error says how to save it', async () => {
  await setup(0);
  mock.failNext({ method: 'GET', path: /^\/files\// }, { status: 403, times: 10 });
  const error = await client.videos.generate(params(), { output: join(dir, 'out.mp4'), pollInterval: 10 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIError);
  const [video] = mock.state.listVideos();
  expect((error as APIError).videoId).toBe(video?.id);
  expect(warnings).toHaveLength(1);
  // The log names the job in any caller's terms (the CLI shows it too); the error names the call that saves it.
  expect(warnings[0]).toMatch(new RegExp(`video ${video?.id} is COMPLETE, .*save it again by its id, without paying twice$`));
  expect(warnings[0]).not.toContain('videos.');
  expect((error as APIError).message).toContain(`videos.download('${video?.id}'`);
});

it('a job error carries the video itself: no warning', async () => {
  await setup(0);
  mock.enqueueOutcome({ status: 'FAILED', error: { code: 'bad_audio', message: 'no speech' } });
  await expect(client.videos.createAndWait(params(), { pollInterval: 10 })).rejects.toBeInstanceOf(VideoFailedError);
  expect(warnings).toEqual([]);
});
