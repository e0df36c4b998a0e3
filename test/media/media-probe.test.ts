import { createReadStream, openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaValidationError } from '../../src/errors.js';
import { type MediaInfo, probeMedia } from '../../src/media/index.js';
import { toFile } from '../../src/uploads.js';
import { useCleanup } from '../helpers/fixture.js';
import { writeHighBitrateVbrMp3, writeLongWav, writePaddedMp4, writeRepeatedMp3 } from '../support/large-media.js';

const closers = useCleanup();

const DIR = join(import.meta.dirname, '../fixtures/media');
const fixture = (name: string) => join(DIR, name);

/** A file as a Blob whose reads (a Blob is read only through `slice`) are counted, or fail with `error`. */
class WatchedBlob extends Blob {
  bytesRead = 0;
  reads = 0;
  readonly #file: Blob;
  readonly #error: Error | undefined;
  readonly name: string;
  constructor(file: Blob, name: string, error?: Error) {
    super();
    this.#file = file;
    this.name = name;
    this.#error = error;
  }
  override get size() {
    return this.#file.size;
  }
  override slice(start?: number, end?: number): Blob {
    const part = this.#file.slice(start, end);
    this.bytesRead += part.size;
    this.reads += 1;
    const error = this.#error;
    return error
      ? new (class extends Blob {
          override arrayBuffer = () => Promise.reject(error);
        })()
      : part;
  }
}
const watched = async (path: string, error?: Error) => new WatchedBlob(await openAsBlob(path), basename(path), error);

interface Entry {
  file: string;
  expect: 'ok' | 'unsupported_format' | 'unreadable_media';
  kind?: MediaInfo['kind'];
  format?: MediaInfo['format'];
  durationSeconds?: number;
  toleranceSeconds?: number;
  width?: number;
  height?: number;
  hasAudio?: boolean;
  mentions?: string;
  note: string;
}
const manifest: Entry[] = JSON.parse(await readFile(fixture('manifest.json'), 'utf8'));

/** The issue a probe rejected with (fails the test if it resolved or threw anything else). */
async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    (info) => expect.unreachable(`expected a rejection, got ${JSON.stringify(info)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaValidationError);
  const { issues } = error as MediaValidationError;
  expect(issues).toHaveLength(1);
  return issues[0]!;
}

describe('probeMedia on the fixture set (made by scripts/make-media-fixtures.sh)', () => {
  it('covers every expectation kind', () => {
    expect(manifest.filter((e) => e.expect === 'ok').length).toBeGreaterThan(40);
    expect(manifest.filter((e) => e.expect === 'unsupported_format').length).toBeGreaterThan(15);
    expect(manifest.filter((e) => e.expect === 'unreadable_media').length).toBeGreaterThan(10);
  });

  it.each(manifest.filter((e) => e.expect === 'ok'))('$file: $note', async (entry) => {
    const info = await probeMedia(fixture(entry.file));
    expect(info).toMatchObject({ kind: entry.kind, format: entry.format });
    if (entry.durationSeconds !== undefined) {
      expect(Math.abs((info.durationSeconds ?? Number.NaN) - entry.durationSeconds)).toBeLessThanOrEqual(entry.toleranceSeconds ?? 0);
    } else {
      expect(info.durationSeconds).toBeUndefined();
    }
    if (entry.width !== undefined) expect({ width: info.width, height: info.height }).toEqual({ width: entry.width, height: entry.height });
    if (entry.hasAudio !== undefined) expect(info.hasAudio).toBe(entry.hasAudio);
  });

  it.each(manifest.filter((e) => e.expect !== 'ok'))('$file is $expect: $note', async (entry) => {
    const issue = await rejection(probeMedia(fixture(entry.file)));
    expect(issue.code).toBe(entry.expect);
    expect(issue.message).toContain(entry.mentions);
    expect(issue.message.startsWith(`${entry.file} `)).toBe(true); // the message names the file
  });

  it('measures bounds exactly where the encoder recorded its padding', async () => {
    // Validation compares with inclusive bounds, so these must not drift past them.
    for (const [file, seconds] of [
      ['wav-pcm16-1.0s.wav', 1],
      ['wav-u8-60.0s.wav', 60],
      ['mp3-1.0s.mp3', 1],
      ['mp3-60.0s.mp3', 60],
    ] as const) {
      expect((await probeMedia(fixture(file))).durationSeconds).toBeCloseTo(seconds, 9);
    }
  });
});

describe('messages', () => {
  it('names the file, what it is and what the field allows', async () => {
    const flac = toFile(await readFile(fixture('flac-named.wav')), 'voice.wav');
    expect(await rejection(probeMedia(flac, { fieldName: 'audio_reference' }))).toEqual({
      field: 'audio_reference',
      code: 'unsupported_format',
      message: 'voice.wav is FLAC audio; audio must be WAV or MP3',
    });
    const gif = await rejection(probeMedia(fixture('gif-named.png'), { fieldName: 'image_reference' }));
    expect(gif.message).toBe('gif-named.png is a GIF image; images must be JPEG or PNG');
    const m4a = await rejection(probeMedia(fixture('m4a-audio-only.m4a'), { fieldName: 'video_reference' }));
    expect(m4a.message).toBe(
      'm4a-audio-only.m4a is AAC audio in an MP4 container with no video track; video references must be MP4 or MOV with a video track',
    );
  });

  it('lists every accepted format when no field is given', async () => {
    const issue = await rejection(probeMedia(fixture('webm.webm')));
    expect(issue.field).toBe('source');
    expect(issue.message).toBe(
      'webm.webm is a WebM file; accepted formats are WAV and MP3 audio, JPEG and PNG images, and MP4 and MOV video',
    );
  });

  it('says what is broken in an unreadable file', async () => {
    const issue = await rejection(probeMedia(fixture('bad-wav-truncated.wav'), { fieldName: 'audio_reference' }));
    expect(issue.message).toBe(
      'bad-wav-truncated.wav cannot be read as WAV audio: its data chunk declares 16,000 bytes but only 8,000 follow (truncated)',
    );
  });
});

describe('inputs', () => {
  const expected = { kind: 'audio', format: 'mp3' };
  const file = fixture('mp3-mpeg2-vbr-xing.mp3');

  it('gives the same answer for every kind of Uploadable', async () => {
    const bytes = new Uint8Array(await readFile(file));
    const inputs = [
      file,
      pathToFileURL(file),
      bytes,
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      new Blob([bytes]),
      new File([bytes], 'speech.mp3'),
      createReadStream(file),
      Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      toFile(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]), 'speech.mp3'),
    ];
    for (const input of inputs) expect(await probeMedia(input)).toMatchObject(expected);
  });

  it('never trusts the name: the same bytes under any name give the same result', async () => {
    const bytes = await readFile(fixture('png-64x36.png'));
    for (const name of ['photo.jpg', 'clip.mp4', 'voice.wav', 'noext']) {
      expect(await probeMedia(toFile(bytes, name))).toEqual({ kind: 'image', format: 'png', width: 64, height: 36 });
    }
  });

  it('names a nameless buffer by its field in messages', async () => {
    const issue = await rejection(probeMedia(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), { fieldName: 'audio_reference' }));
    expect(issue.message).toMatch(/^audio_reference is of an unrecognised format/);
  });

  it('turns a read error into unreadable_media', async () => {
    const failing = await watched(fixture('wav-pcm16-1.0s.wav'), new Error('EIO: i/o error'));
    const issue = await rejection(probeMedia(failing, { fieldName: 'audio_reference' }));
    expect(issue).toMatchObject({ code: 'unreadable_media', message: 'wav-pcm16-1.0s.wav cannot be read: EIO: i/o error' });
  });
});

describe('reads only headers', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'probe-test-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
  });

  async function probeCounting(path: string) {
    const blob = await watched(path);
    const info = await probeMedia(blob);
    expect(blob.reads).toBeGreaterThan(0); // so that a small count means a small read, not an uncounted one
    return { info, bytesRead: blob.bytesRead, reads: blob.reads };
  }

  it('a 300 MB MP4 with its moov at the end', async () => {
    const path = join(dir, 'big.mp4');
    const size = await writePaddedMp4(fixture('mp4-10s-moov-end.mp4'), path, 300 * 1024 * 1024);
    const { info, bytesRead } = await probeCounting(path);
    expect(size).toBeGreaterThan(300 * 1024 * 1024);
    expect(info).toMatchObject({ kind: 'video', format: 'mp4', durationSeconds: 10, width: 64, height: 36, hasAudio: true });
    expect(bytesRead).toBeLessThan(64 * 1024);
  });

  it('a 60 s 48 kHz stereo WAV', async () => {
    const path = join(dir, 'long.wav');
    await writeLongWav(path, 60);
    const { info, bytesRead, reads } = await probeCounting(path);
    expect(info).toEqual({ kind: 'audio', format: 'wav', durationSeconds: 60 });
    expect(bytesRead).toBeLessThanOrEqual(4096);
    expect(reads).toBe(1);
  });

  it('a 60 s VBR MP3 without a Xing header: every frame is visited, each read once', async () => {
    const path = join(dir, 'long.mp3');
    const size = await writeRepeatedMp3(fixture('mp3-mpeg1-vbr-noxing.mp3'), path, 24);
    const one = await probeMedia(fixture('mp3-mpeg1-vbr-noxing.mp3'));
    const { info, bytesRead } = await probeCounting(path);
    expect(info.durationSeconds).toBeCloseTo((one.durationSeconds ?? 0) * 24, 6);
    expect(bytesRead).toBeLessThan(size * 1.1 + 16 * 1024); // windows overlap by at most a frame
  });

  it('walks a synthetic high-bitrate VBR stream frame by frame', async () => {
    const path = join(dir, 'synthetic.mp3');
    await writeHighBitrateVbrMp3(path, 1000);
    const { info } = await probeCounting(path);
    expect(info.durationSeconds).toBeCloseTo((1000 * 1152) / 44_100, 9);
  });

  it('a VBR MP3 with a Xing header is measured from its first frame', async () => {
    const { bytesRead } = await probeCounting(fixture('mp3-60.0s.mp3'));
    expect(bytesRead).toBeLessThan(16 * 1024);
  });
});
