import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarVideo, InvalidArgumentError, type PollState } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { type FakeTime, fakeTime } from '../helpers/fake-time.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();

/** A job's progress at `elapsed` ms, forced on the mock; undefined leaves the mock's own (linear) progress. */
type Timing = (elapsed: number) => number | null | undefined;

let time: FakeTime;
beforeEach(async () => {
  time = await fakeTime();
});

/**
 * A mock job of `ms` on the mock's real clock, which is the faked Date, with its progress set by `timing` at each
 * poll: as the mock reads the job to answer, `timing` of the fake time since the create is forced on it.
 */
async function timedJob(ms: number, timing: Timing, pollAfterMs: number | null = null) {
  const server = await startMockServer({ processingMs: ms, pollAfterMs });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
  closers.push(() => client.close(), server.close);
  const { id } = server.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' });
  const createdAt = Date.now();
  const read = server.state.getVideo.bind(server.state);
  vi.spyOn(server.state, 'getVideo').mockImplementation((videoId) => {
    const progress = timing(Date.now() - createdAt);
    if (progress !== undefined) server.setVideo(id, { progress });
    return read(videoId);
  });
  const polls = () => server.requests.filter((r) => r.path === `/v1/videos/${id}`).length;
  return { client, server, id, polls };
}

/** `videos.poll` until done, sleeping on fake time as told, the state through JSON at every step. */
async function pollUntilDone(client: AvatarVideo, id: string) {
  const delays: number[] = [];
  let state: PollState | undefined;
  for (;;) {
    const step = await client.videos.poll(id, state);
    if (step.done) return { step, delays };
    delays.push(step.nextPollAfterMs);
    state = JSON.parse(JSON.stringify(step.state)) as PollState;
    await vi.advanceTimersByTimeAsync(step.nextPollAfterMs);
  }
}

const linear: Timing = () => undefined;
const none: Timing = () => null;
/** Moves to 40, then stands still until the end. */
const stuck: Timing = (t) => Math.min(40, Math.floor(t / 500));
/** Rises to 50 at 30 s, then restarts from 0 and reaches 99 just before the end at 60 s. */
const backwards: Timing = (t) => (t < 30_000 ? Math.floor(t / 600) : Math.min(99, Math.floor((t - 30_000) / 300)));

describe('videos.poll across processes', () => {
  it.each([
    ['linear progress', 60_000, linear, null],
    ['no progress', 30_000, none, null],
    ['stuck progress', 60_000, stuck, null],
    ['progress going backwards', 60_000, backwards, null],
    ['a server hint', 3_000, linear, 700],
  ] as const)('%s: polls when and as often as waitForCompletion, the state round-tripped through JSON', async (_, ms, timing, hint) => {
    const waited = await timedJob(ms, timing, hint);
    const video = await time.run(() => waited.client.videos.waitForCompletion(waited.id));
    const sleeps = time.sleeps();
    const stepped = await timedJob(ms, timing, hint);
    const { step, delays } = await pollUntilDone(stepped.client, stepped.id);
    expect(delays).toEqual(sleeps);
    expect(stepped.polls()).toBe(waited.polls());
    expect(step.state.polls).toBe(stepped.polls());
    expect(step).toMatchObject({ done: true, nextPollAfterMs: undefined, video: { status: 'COMPLETE', progress: video.progress } });
    // Each case exercises what it names: several polls, sparse ones while far when progress moves.
    expect(delays.length).toBeGreaterThan(3);
  });

  it('reads FAILED and CANCELLED as done, without a throw', async () => {
    const { client, server, id } = await timedJob(0, linear);
    server.setVideo(id, { status: 'FAILED', error: { code: 'face_not_found', message: 'No face' } });
    const failed = await client.videos.poll(id);
    expect(failed).toMatchObject({ done: true, video: { status: 'FAILED', error: { code: 'face_not_found' } } });
    server.setVideo(id, { status: 'CANCELLED' });
    expect(await client.videos.poll(id, failed.state)).toMatchObject({ done: true, video: { status: 'CANCELLED' }, state: { polls: 2 } });
  });

  it('keeps polling a status it does not know', async () => {
    const { client, server, id } = await timedJob(60_000, linear);
    server.setVideo(id, { status: 'QUEUED' as 'PROCESSING' });
    expect(await client.videos.poll(id)).toMatchObject({ done: false, nextPollAfterMs: expect.any(Number) });
  });
});

describe('a state videos.poll cannot use', () => {
  it('is refused with InvalidArgumentError naming state, before any request: another version, damaged, another video', async () => {
    const { client, id, polls } = await timedJob(60_000, linear);
    const { state } = await client.videos.poll(id);
    const refusal = (bad: unknown) =>
      client.videos.poll(id, bad as PollState).then(
        () => undefined,
        (error: unknown) => error as InvalidArgumentError,
      );
    const cases: Array<[unknown, RegExp]> = [
      [{ ...state, v: 2 }, /videos\.poll: state must be a videos\.poll state of version 1 \(omit it to start the schedule afresh\)/],
      [null, /version 1/],
      ['{"v":1}', /version 1/],
      [{ ...state, runs: [[10, 'x', 1]] }, /state must be the state a previous videos\.poll returned, unchanged/],
      [{ ...state, polls: -1 }, /unchanged/],
      [{ ...state, extra: true }, /unchanged/],
      [{ ...state, finishAt: undefined }, /unchanged/],
      [{ ...state, videoId: 'vid_other' }, new RegExp(`state must be the state of video ${id}, not of another`)],
    ];
    for (const [bad, message] of cases) {
      const error = await refusal(bad);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument: 'state', message: expect.stringMatching(message) });
    }
    expect(polls()).toBe(1);
    // Afresh, the same video polls again.
    expect(await client.videos.poll(id)).toMatchObject({ done: false, state: { v: 1, videoId: id, polls: 1 } });
  });
});
