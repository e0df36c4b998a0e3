import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { APIUserAbortError, MediaValidationError } from '../../src/errors.js';
import { type AudioSegment, probeMedia, type SplitAudioResult, splitAudio } from '../../src/media/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mp3FrameLength } from '../helpers/mp3.js';
import { type SpeechLayout, speechLayout, speechSamples, wavHeader, writeSpeechWav } from '../helpers/speech.js';

const LONG = join(import.meta.dirname, '../fixtures/long');
const RATE = 8000;
/** LAME's encoder delay (576 + 529 samples): where the fixtures' MP3 audio starts relative to their WAV source. */
const LAME_DELAY_SECONDS = 1105 / RATE;
/** One MPEG-2.5 Layer III frame at 8 kHz. */
const MP3_FRAME_SECONDS = 576 / RATE;

const closers = useCleanup();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'split-audio-test-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

const out = (name: string) => join(dir, name);

/** The speech-like WAV of `seconds` in the test folder, written once (the 30-minute one serves two tests). */
const written = new Map<number, Promise<SpeechLayout>>();
function speechWav(seconds: number): { path: string; layout: Promise<SpeechLayout> } {
  const path = out(`speech-${seconds}.wav`);
  if (!written.has(seconds)) written.set(seconds, writeSpeechWav(path, seconds));
  return { path, layout: written.get(seconds) as Promise<SpeechLayout> };
}

/** Every segment's own file measures what the result says, and lasts 1 to 60 s. */
async function expectValidSegments(result: SplitAudioResult, format: 'wav' | 'mp3') {
  let start = 0;
  for (const [index, segment] of result.segments.entries()) {
    const info = await probeMedia(segment.path);
    expect(info).toMatchObject({ kind: 'audio', format });
    expect(info.durationSeconds).toBeCloseTo(segment.durationSeconds, 9);
    expect(segment).toMatchObject({ index, format });
    expect(segment.startSeconds).toBeCloseTo(start, 9);
    expect(segment.durationSeconds).toBeGreaterThanOrEqual(1);
    expect(segment.durationSeconds).toBeLessThanOrEqual(60);
    start += segment.durationSeconds;
  }
}

/** The audio data of a 44-byte-header PCM WAV. */
const wavData = async (path: string) => (await readFile(path)).subarray(44);

/** `blob` as openSource sees it (a Blob, read through slice()), telling `onRead` the length of each read. */
function watchedBlob(blob: Blob, onRead: (length: number) => void): Blob {
  return new Proxy(blob, {
    get(target, key) {
      if (key === 'slice') {
        return (start: number, end: number) => {
          onRead(Math.min(end, target.size) - start);
          return target.slice(start, end);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const inPause = (layout: SpeechLayout, seconds: number, slack = 0) =>
  layout.pauses.some(([a, b]) => a / layout.sampleRate - slack <= seconds && seconds <= b / layout.sampleRate + slack);

/**
 * A segment cut where the billing wants it rather than in a pause: 0.1 s (the output margin) under a multiple of the
 * default 6 s step, give or take one MP3 frame (72 ms at 8 kHz; the margin itself is rounded up to whole frames).
 */
const justBelowStep = (segment: AudioSegment) => {
  const unbilled = Math.ceil(segment.durationSeconds / 6 - 1e-9) * 6 - segment.durationSeconds;
  return unbilled >= 0.1 - 1e-9 && unbilled <= 0.1 + 2 * MP3_FRAME_SECONDS;
};

/** Each cut falls in a pause (by `paused`) or, where no pause lies within the billing's reach, just below a step. */
function expectCutsInPausesOrSteps(result: SplitAudioResult, paused: (startSeconds: number) => boolean) {
  for (const [index, segment] of result.segments.entries()) {
    const previous = result.segments[index - 1];
    if (previous) expect(paused(segment.startSeconds) || justBelowStep(previous)).toBe(true);
  }
}

/** Seconds billed for the segments' videos, each up to the 0.1 s output margin longer than its audio. */
const billedSeconds = (result: SplitAudioResult) =>
  result.segments.reduce((sum, s) => sum + Math.ceil((s.durationSeconds + 0.1) / 6 - 1e-9) * 6, 0);

describe('splitAudio: WAV', () => {
  it.each([61, 180, 1800])('cuts %i s of speech at pauses or steps, sample-exactly, into valid WAVs', async (seconds) => {
    const { path: source, layout: written } = speechWav(seconds);
    const layout = await written;
    const result = await splitAudio(source, { outputDir: out(`wav-${seconds}`) });

    expect(result.durationSeconds).toBe(seconds);
    expect(result.segments).toHaveLength(Math.ceil(seconds / 59.9)); // every cut but the last 0.1 s under a multiple of 6 s
    await expectValidSegments(result, 'wav');
    expectCutsInPausesOrSteps(result, (at) => inPause(layout, at));
    // Billed as the whole rounded up to 6 s, or (180 s and 1800 s, whole multiples: a cut needs room) one step more.
    expect(billedSeconds(result)).toBeLessThanOrEqual(Math.ceil(seconds / 6) * 6 + (seconds % 6 === 0 ? 6 : 0));
    if (seconds === 61) expect(inPause(layout, result.segments[1]?.startSeconds ?? -1)).toBe(true); // 4.8 s of slack

    // Sample counts add up exactly, and the data is the original's, cut and nothing else.
    const counts = await Promise.all(result.segments.map(async (s) => (await wavData(s.path)).length / 2));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(layout.frames);
    const joined = createHash('sha256');
    for (const segment of result.segments) joined.update(await wavData(segment.path));
    expect(joined.digest('hex')).toBe(
      createHash('sha256')
        .update(await wavData(source))
        .digest('hex'),
    );
  });

  it('reads a 30-minute WAV in pieces of at most 1 MiB, about once', async () => {
    const { path: source, layout } = speechWav(1800);
    await layout;
    const blob = await openAsBlob(source);
    const reads: number[] = [];
    const counting = watchedBlob(blob, (length) => reads.push(length));
    const result = await splitAudio(counting, { outputDir: out('wav-blob') });
    expect(result.segments.length).toBeGreaterThan(30);
    expect(Math.max(...reads)).toBeLessThanOrEqual(1024 * 1024);
    // Each byte is copied once; the search windows add about a sixth (10 s of every 60 s).
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(blob.size * 1.25);
  });

  it('still splits within the limits when there is no pause at all', async () => {
    const source = out('steady.wav');
    await writeSpeechWav(source, 150, { pauses: false });
    const result = await splitAudio(source, { outputDir: out('wav-steady') });
    await expectValidSegments(result, 'wav');
    expect(result.segments.map((s) => s.durationSeconds).reduce((a, b) => a + b, 0)).toBeCloseTo(150, 9);
    for (const segment of result.segments.slice(0, -1)) expect(segment.durationSeconds).toBeGreaterThanOrEqual(50);
  });

  it('moves a cut earlier rather than leave a last segment under the minimum', async () => {
    const source = out('speech-60.5.wav');
    await writeSpeechWav(source, 60.5, { pauses: false });
    const result = await splitAudio(source, { outputDir: out('wav-60.5'), searchWindowSeconds: 0.1 });
    const [first, last] = result.segments.map((s) => s.durationSeconds);
    expect(result.segments).toHaveLength(2);
    expect(first).toBeGreaterThanOrEqual(59.4); // the window ends at 59.5 s, the latest cut that leaves 1 s
    expect(last).toBeGreaterThanOrEqual(1);
  });

  it('cuts float and stereo WAVs too, keeping their fmt chunk', async () => {
    const layout = speechLayout(75, { seed: 4 });
    const mono = speechSamples(layout, 0, layout.frames, 4);
    const data = new Float32Array(layout.frames * 2);
    mono.forEach((sample, i) => {
      data[2 * i] = sample / 32768;
      data[2 * i + 1] = -sample / 32768;
    });
    const header = new Uint8Array(wavHeader(layout.frames, RATE));
    const view = new DataView(header.buffer);
    view.setUint16(20, 3, true); // IEEE float
    view.setUint16(22, 2, true);
    view.setUint32(28, RATE * 8, true);
    view.setUint16(32, 8, true);
    view.setUint16(34, 32, true);
    view.setUint32(40, data.byteLength, true);
    view.setUint32(4, 36 + data.byteLength, true);
    const source = out('float-stereo.wav');
    await writeFile(source, Buffer.concat([header, new Uint8Array(data.buffer)]));

    const result = await splitAudio(source, { outputDir: out('wav-float') });
    expect(result.segments).toHaveLength(2);
    await expectValidSegments(result, 'wav');
    expect(inPause(layout, result.segments[1]?.startSeconds ?? -1)).toBe(true);
    const first = await readFile(result.segments[0]?.path ?? '');
    expect(first.subarray(12, 36).equals(header.subarray(12, 36))).toBe(true); // the source's fmt chunk
    expect(first.toString('latin1', 36, 40)).toBe('fact'); // which float WAVs should have
  });

  it('copies audio that is short enough as it is', async () => {
    const source = out('short.wav');
    await writeSpeechWav(source, 42);
    const result = await splitAudio(source, { outputDir: out('wav-short') });
    expect(result.segments).toEqual([
      { path: out('wav-short/segment-000.wav'), index: 0, startSeconds: 0, durationSeconds: 42, format: 'wav' },
    ]);
    expect((await readFile(result.segments[0]?.path ?? '')).equals(await readFile(source))).toBe(true);
  });

  it('refuses a compressed WAV it cannot cut sample-exactly, naming what it is', async () => {
    // IMA ADPCM, 70 s of (silent) blocks, with the fact chunk that gives its length.
    const blocks = Math.ceil((70 * RATE) / 505);
    const header = Buffer.alloc(60);
    header.write('RIFF', 0);
    header.writeUInt32LE(52 + blocks * 256, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(20, 16);
    header.writeUInt16LE(0x11, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(RATE, 24);
    header.writeUInt32LE(4055, 28);
    header.writeUInt16LE(256, 32);
    header.writeUInt16LE(4, 34);
    header.writeUInt16LE(2, 36);
    header.writeUInt16LE(505, 38);
    header.write('fact', 40);
    header.writeUInt32LE(4, 44);
    header.writeUInt32LE(70 * RATE, 48);
    header.write('data', 52);
    header.writeUInt32LE(blocks * 256, 56);
    const source = out('adpcm.wav');
    await writeFile(source, Buffer.concat([header, Buffer.alloc(blocks * 256)]));

    const error = await splitAudio(source, { outputDir: out('wav-adpcm') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaValidationError);
    expect((error as MediaValidationError).issues).toEqual([
      expect.objectContaining({
        field: 'audio_reference',
        code: 'unsupported_format',
        message: expect.stringMatching(/adpcm\.wav .*0x0011.*PCM/),
      }),
    ]);
  });
});

describe('splitAudio: MP3', () => {
  const speech60 = join(LONG, 'speech-60s.mp3'); // no Xing header: copies concatenate into longer audio
  const copyLayout = speechLayout(60, { seed: 1 });

  it.each([3, 30])('cuts %i copies of a 60 s speech MP3 at pauses, on frame boundaries', async (copies) => {
    const one = await readFile(speech60);
    const oneSeconds = (await probeMedia(speech60)).durationSeconds ?? 0;
    const source = out(`speech-x${copies}.mp3`);
    await writeFile(source, Buffer.concat(Array.from({ length: copies }, () => one)));
    const result = await splitAudio(source, { outputDir: out(`mp3-x${copies}`) });

    await expectValidSegments(result, 'mp3');
    // Frames add up exactly: the segments are the original's bytes, cut between frames.
    const parts = await Promise.all(result.segments.map((s) => readFile(s.path)));
    expect(Buffer.concat(parts).equals(await readFile(source))).toBe(true);
    for (const part of parts) expect(mp3FrameLength(part)).toBeDefined();
    const total = result.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
    expect(total).toBeCloseTo(result.durationSeconds, 9);
    expect(result.durationSeconds).toBeCloseTo(copies * oneSeconds, 9);
    // The cut after each copy's end falls in its last pause (in MP3 time, shifted by the encoder delay), give or take
    // a frame. Others may fall where the 8 kbit/s encoder coded a syllable's dip as silence, which the layout does
    // not list as a pause; the billing holds either way: the whole rounded up to 6 s, or one step more when the
    // whole leaves less than the margins of its cuts (1805.76 s in 31 segments).
    const [first, second] = result.segments.map((s) => s.startSeconds).slice(1);
    expect(inPause(copyLayout, (first ?? 0) - LAME_DELAY_SECONDS, MP3_FRAME_SECONDS)).toBe(true);
    if (copies === 3) expect(inPause(copyLayout, ((second ?? 0) % oneSeconds) - LAME_DELAY_SECONDS, MP3_FRAME_SECONDS)).toBe(true);
    expect(billedSeconds(result)).toBe(Math.ceil(result.durationSeconds / 6) * 6 + (copies === 30 ? 6 : 0));
  });

  it('drops the Xing/LAME header frame, whose counts would be wrong for a segment', async () => {
    const source = join(LONG, 'speech-61s-xing.mp3');
    const original = await readFile(source);
    const result = await splitAudio(source, { outputDir: out('mp3-xing') });
    expect(result.durationSeconds).toBeCloseTo(61, 2); // measured with the LAME gapless trim
    expect(result.segments).toHaveLength(2);
    await expectValidSegments(result, 'mp3');
    const layout = speechLayout(61, { seed: 2 });
    expectCutsInPausesOrSteps(result, (at) => inPause(layout, at - LAME_DELAY_SECONDS, MP3_FRAME_SECONDS));

    const headerFrame = mp3FrameLength(original) ?? 0;
    expect(original.toString('latin1', 0, headerFrame)).toMatch(/Info|Xing/);
    const parts = await Promise.all(result.segments.map((s) => readFile(s.path)));
    expect(Buffer.concat(parts).equals(original.subarray(headerFrame))).toBe(true);
    for (const part of parts) expect(part.toString('latin1', 0, 64)).not.toMatch(/Info|Xing|ID3/);
    // Segments carry no gapless trim: together they are the original's untrimmed frames, a few frames longer.
    const total = result.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
    expect(total).toBeCloseTo(((original.length - headerFrame) / 72) * MP3_FRAME_SECONDS, 9);
    expect(total - result.durationSeconds).toBeGreaterThan(0);
    expect(total - result.durationSeconds).toBeLessThan(4 * MP3_FRAME_SECONDS);
  });

  it('finds the pauses of noisy MPEG-1 stereo too (pink noise 40 dB down)', async () => {
    const result = await splitAudio(join(LONG, 'noisy-65s-stereo.mp3'), { outputDir: out('mp3-noisy'), maxSegmentSeconds: 20 });
    expect(result.segments.length).toBeGreaterThanOrEqual(4);
    await expectValidSegments(result, 'mp3');
    const layout = speechLayout(65, { seed: 5 });
    // 32 kHz: LAME's delay is 1105 samples, a frame 1152.
    expectCutsInPausesOrSteps(result, (at) => inPause(layout, at - 1105 / 32_000, 1152 / 32_000));
  });

  it('still splits within the limits when there is no pause at all', async () => {
    const result = await splitAudio(join(LONG, 'steady-130s.mp3'), { outputDir: out('mp3-steady') });
    expect(result.segments).toHaveLength(3);
    await expectValidSegments(result, 'mp3');
  });
});

describe('splitAudio: inputs and options', () => {
  it('accepts bytes and names segments in order', async () => {
    const bytes = await readFile(join(LONG, 'steady-130s.mp3'));
    const result = await splitAudio(bytes, { outputDir: out('from-bytes'), maxSegmentSeconds: 30 });
    expect(result.segments.map((s: AudioSegment) => s.path)).toEqual(
      result.segments.map((_, i) => out(`from-bytes/segment-${String(i).padStart(3, '0')}.mp3`)),
    );
    expect(result.segments.every((s) => s.durationSeconds <= 30)).toBe(true);
  });

  it('cuts just below multiples of billingIncrementSeconds (6 by default), into pauses within reach', async () => {
    const source = out('tone-95.wav');
    await writeSpeechWav(source, 95, { pauses: false });
    const lengths = async (options: Parameters<typeof splitAudio>[1]) =>
      (await splitAudio(source, options)).segments.map((s) => +s.durationSeconds.toFixed(4));
    // Billed 96 s, the whole rounded up, where cuts at the limit (20, 20, 20, 20, 15) would bill 5 x 24 = 120 s.
    expect(await lengths({ outputDir: out('step-6'), maxSegmentSeconds: 20 })).toEqual([17.9, 17.9, 17.9, 17.9, 17.9, 5.5]);
    expect(await lengths({ outputDir: out('step-10'), maxSegmentSeconds: 20, billingIncrementSeconds: 10 })).toEqual([
      19.9, 19.9, 19.9, 19.9, 15.4,
    ]);
    await expect(splitAudio(source, { billingIncrementSeconds: 0 })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'billingIncrementSeconds',
    });

    // 65 s of speech with 60 s segments: billed 66 s, its one cut in a pause (0.8 s of slack below 60 s or 54 s).
    const { path: speech, layout: written } = speechWav(65);
    const layout = await written;
    const split = await splitAudio(speech, { outputDir: out('step-speech') });
    expect(billedSeconds(split)).toBe(66);
    expect(inPause(layout, split.segments[1]?.startSeconds ?? -1)).toBe(true);
  });

  it('writes to a new temporary folder by default', async () => {
    const result = await splitAudio(join(LONG, 'speech-61s-xing.mp3'));
    expect(result.segments[0]?.path.startsWith(join(tmpdir(), 'avatar-video-segments-'))).toBe(true);
    await rm(join(result.segments[0]?.path ?? '', '..'), { recursive: true });
  });

  it('refuses impossible limits and non-audio input', async () => {
    // Typed as every SDK error is, naming the option at fault.
    await expect(splitAudio(join(LONG, 'steady-130s.mp3'), { maxSegmentSeconds: 1.5 })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'maxSegmentSeconds',
      message: expect.stringMatching(/at least twice minSegmentSeconds \(1 s\)/),
    });
    await expect(splitAudio(join(LONG, 'steady-130s.mp3'), { searchWindowSeconds: 0 })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'searchWindowSeconds',
    });
    const error = await splitAudio(join(LONG, 'other-320x180-44k.mp4')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaValidationError);
    expect((error as MediaValidationError).message).toMatch(/MP4 video; splitAudio cuts WAV and MP3/);
  });

  it('stops on abort, leaving no partial segment file', async () => {
    const source = out('abort.wav');
    await writeSpeechWav(source, 200, { sampleRate: 48_000 }); // about 5 MB a segment: several 1 MiB copy reads
    const folder = out('wav-abort');
    const early = new AbortController();
    early.abort(new Error('enough'));
    await expect(splitAudio(source, { outputDir: folder, signal: early.signal })).rejects.toBeInstanceOf(APIUserAbortError);

    // Abort while the second segment is being copied: only copies read exactly 1 MiB, five of them per segment.
    const late = new AbortController();
    let copied = 0;
    const blob = watchedBlob(await openAsBlob(source), (length) => {
      if (length === 1024 * 1024 && ++copied === 7) late.abort();
    });
    const error = await splitAudio(blob, { outputDir: folder, signal: late.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(await readdir(folder)).toEqual(['segment-000.wav']);
  });
});
