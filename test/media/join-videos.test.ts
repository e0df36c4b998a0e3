import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { APIUserAbortError, JoinError } from '../../src/errors.js';
import { joinVideos } from '../../src/media/index.js';
import { LANDSCAPE_MP4, PORTRAIT_MP4 } from '../../src/testing/fixtures.generated.js';
import { PROVENANCE_KEY, provenanceValue, renderOutput } from '../../src/testing/render-output.js';
import { useCleanup } from '../helpers/fixture.js';
import { summarizeMp4, topLevelBoxes } from '../helpers/mp4.js';

const OTHER = join(import.meta.dirname, '../fixtures/long/other-320x180-44k.mp4'); // 320x180, AAC 44.1 kHz stereo
/** Well under one tick of either track's timescale error (1/57600 s video, 1/48000 s audio). */
const TICK = 1e-4;

const closers = useCleanup();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'join-videos-test-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

/** Mock service outputs of these durations, written to files named after their job ids. */
async function segments(durations: number[], fixture = LANDSCAPE_MP4, prefix = 'vid'): Promise<string[]> {
  return Promise.all(
    durations.map(async (seconds, i) => {
      const path = join(dir, `${prefix}_${i}.mp4`);
      await writeFile(path, await renderOutput(fixture, seconds, `${prefix}_${i}`));
      return path;
    }),
  );
}

const leftovers = async () => (await readdir(dir)).filter((name) => name.endsWith('.part'));

describe('joinVideos', () => {
  it('joins clips end to end: duration and packet counts add up, audio and video start together at every join', async () => {
    const durations = [2.5, 1, 3.37, 60];
    const inputs = await segments(durations);
    const parts = await Promise.all(inputs.map((path) => summarizeMp4(path)));
    const output = join(dir, 'joined.mp4');
    const result = await joinVideos(inputs, output, { metadata: { segmentIds: ['vid_0', 'vid_1', 'vid_2', 'vid_3'] } });

    const total = durations.reduce((a, b) => a + b, 0);
    expect(result.path).toBe(output);
    expect(result.durationSeconds).toBeCloseTo(total, 9);
    expect(result.bytes).toBe((await readFile(output)).length);
    const joined = await summarizeMp4(output);
    expect(joined.durationSeconds).toBeCloseTo(total, 4);
    expect(joined.videoSeconds).toBeCloseTo(total, 4);
    expect(joined.audioSeconds).toBeCloseTo(total, 4); // no drift: both tracks end together
    expect([joined.width, joined.height]).toEqual([1280, 720]);

    // Every video frame is kept; each input's AAC priming packet (timed before 0) is dropped.
    expect(parts.every((part) => (part.audioTimestamps[0] ?? 0) < 0)).toBe(true);
    expect(joined.videoPackets).toBe(parts.reduce((sum, part) => sum + part.videoPackets, 0));
    expect(joined.audioPackets).toBe(parts.reduce((sum, part) => sum + part.audioPackets - 1, 0));
    expect(Math.min(...joined.audioTimestamps)).toBeGreaterThanOrEqual(0);

    // At each join point both tracks resume at the sum of the durations before it.
    let offset = 0;
    let videoIndex = 0;
    let audioIndex = 0;
    for (const [i, part] of parts.entries()) {
      expect(Math.abs((joined.videoTimestamps[videoIndex] ?? Number.NaN) - offset)).toBeLessThan(TICK);
      expect(Math.abs((joined.audioTimestamps[audioIndex] ?? Number.NaN) - offset)).toBeLessThan(TICK);
      // ...and every packet keeps its place within its clip.
      const shiftedVideo = part.videoTimestamps.map((t) => t + offset);
      const video = joined.videoTimestamps.slice(videoIndex, videoIndex + part.videoPackets);
      expect(video.every((t, k) => Math.abs(t - (shiftedVideo[k] as number)) < TICK)).toBe(true);
      videoIndex += part.videoPackets;
      audioIndex += part.audioPackets - 1;
      offset += durations[i] as number;
    }
  });

  it('writes the moov before the media data (plays while downloading), with no temporary file left', async () => {
    const inputs = await segments([3, 2]);
    const output = join(dir, 'faststart.mp4');
    await joinVideos(inputs, output);
    const boxes = topLevelBoxes(await readFile(output));
    expect(boxes.indexOf('moov')).toBeGreaterThan(-1);
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    expect(await leftovers()).toEqual([]);
  });

  it('keeps every segment’s provenance marker and records the segment job ids', async () => {
    const inputs = await segments([1.5, 2, 1], PORTRAIT_MP4, 'job');
    const output = join(dir, 'provenance.mp4');
    await joinVideos(inputs, output, { metadata: { segmentIds: ['job_0', 'job_1', 'job_2'] } });
    const { tags, width, height } = await summarizeMp4(output);
    expect([width, height]).toEqual([720, 1280]);
    expect(tags[PROVENANCE_KEY]?.split('\n')).toEqual(['job_0', 'job_1', 'job_2'].map(provenanceValue));
    // The tag docs/options.md names for `metadata.segmentIds`.
    expect(JSON.parse(tags['avatar-video.segments'] ?? '[]')).toEqual(['job_0', 'job_1', 'job_2']);
  });

  it('refuses clips whose codec settings differ, naming the file and each difference, and writes nothing', async () => {
    const [landscape] = await segments([2], LANDSCAPE_MP4, 'land');
    const [portrait] = await segments([2], PORTRAIT_MP4, 'port');
    const output = join(dir, 'refused.mp4');
    await writeFile(output, 'an earlier file');

    const size = await joinVideos([landscape as string, portrait as string], output).catch((e: unknown) => e);
    expect(size).toBeInstanceOf(JoinError);
    expect(size).toMatchObject({ name: 'JoinError', file: portrait });
    expect((size as JoinError).differences).toEqual(
      expect.arrayContaining(['video size: 720x1280 (first input: 1280x720)', expect.stringMatching(/video decoder configuration/)]),
    );
    expect((size as JoinError).message).toMatch(/port_0\.mp4 cannot be joined to land_0\.mp4 without re-encoding: .*720x1280/);

    const audio = await joinVideos([landscape as string, OTHER], output).catch((e: unknown) => e);
    expect(audio).toBeInstanceOf(JoinError);
    expect((audio as JoinError).differences).toEqual(
      expect.arrayContaining(['audio sample rate: 44100 Hz (first input: 48000 Hz)', 'audio channels: 2 (first input: 1)']),
    );

    const notVideo = await joinVideos([landscape as string, join(import.meta.dirname, '../fixtures/long/steady-130s.mp3')], output).catch(
      (e: unknown) => e,
    );
    expect(notVideo).toBeInstanceOf(JoinError);
    expect((notVideo as JoinError).message).toMatch(/steady-130s\.mp3 cannot be joined: it is not an MP4 with a video track/);
    await expect(joinVideos([], output)).rejects.toBeInstanceOf(JoinError);

    expect(await readFile(output, 'utf8')).toBe('an earlier file');
    expect(await leftovers()).toEqual([]);
  });

  it('stops on abort mid-way and removes the partial file', async () => {
    const inputs = await segments([5, 5, 5], LANDSCAPE_MP4, 'abort');
    const output = join(dir, 'aborted.mp4');
    const controller = new AbortController();
    const progress: number[] = [];
    const error = await joinVideos(inputs, output, {
      signal: controller.signal,
      onProgress: (fraction) => {
        progress.push(fraction);
        controller.abort(); // after the first clip is copied
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(progress).toEqual([1 / 3]);
    await expect(readFile(output)).rejects.toThrow(/ENOENT/);
    expect(await leftovers()).toEqual([]);
  });
});
