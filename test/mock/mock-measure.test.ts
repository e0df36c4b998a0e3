/**
 * The mock judges uploads with readers of its own (src/testing/measure.ts), not the SDK's probe, so a
 * probe bug shows in a create test instead of being agreed with. Here they are held to the known durations and
 * sizes of test/fixtures/media (the files were generated at those lengths; manifest.json records them, with the
 * tolerance their format allows), and kept apart from the SDK's code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VIDEO_MODELS } from '../../src/index.js';
import { LIMITS } from '../../src/media/index.js';
import { measure, sniffFormat } from '../../src/testing/measure.js';
import { MODELS, PARTS } from '../../src/testing/rules.js';

const MEDIA = join(import.meta.dirname, '../fixtures/media');
interface Entry {
  file: string;
  expect: string;
  format?: string;
  durationSeconds?: number;
  toleranceSeconds?: number;
  width?: number;
  height?: number;
}
const accepted = (JSON.parse(readFileSync(join(MEDIA, 'manifest.json'), 'utf8')) as Entry[]).filter((e) => e.expect === 'ok');
const read = (file: string) => new Uint8Array(readFileSync(join(MEDIA, file)));

/**
 * Files the SDK reads and the mock's smaller readers do not (the mock answers 400 for them), and why. Everything
 * else in the manifest the mock must measure as the manifest says.
 */
const BEYOND_THE_MOCK: Record<string, string> = {
  'mp3-zeros-no-tag.mp3': 'MP3 is recognised by an ID3 tag or a frame at byte 0, not after 500 zero bytes',
  'wav-ima-adpcm-nofact.wav': "a compressed WAV without a fact chunk is timed by its byte rate, which ffmpeg's IMA ADPCM states 4x high",
  'mp4-fragmented.mp4': 'a fragmented MP4 gives no duration in its movie header, the only place the mock looks',
};

describe("the mock's readers on test/fixtures/media", () => {
  const timed = accepted.filter((e) => e.durationSeconds !== undefined && !(e.file in BEYOND_THE_MOCK));

  it.each(timed.map((e) => [e.file, e] as const))('%s: format and duration as the manifest says', (_file, entry) => {
    const bytes = read(entry.file);
    const format = sniffFormat(bytes);
    expect(format).toBe(entry.format);
    const measured = format && measure(bytes, format);
    expect(measured).toBeDefined();
    expect(Math.abs((measured?.seconds ?? 0) - (entry.durationSeconds ?? 0))).toBeLessThanOrEqual((entry.toleranceSeconds ?? 0) + 1e-9);
    // Videos: the displayed size (mp4-rotated-90.mp4 stores 64x36 frames turned a quarter).
    if (entry.width !== undefined) expect([measured?.width, measured?.height]).toEqual([entry.width, entry.height]);
  });

  it('covers every kind of timed file, and each exception really is one', () => {
    expect(new Set(timed.map((e) => e.format))).toEqual(new Set(['wav', 'mp3', 'mp4', 'mov']));
    for (const file of Object.keys(BEYOND_THE_MOCK)) {
      const bytes = read(file);
      const format = sniffFormat(bytes);
      const entry = accepted.find((e) => e.file === file);
      const seconds = format && measure(bytes, format)?.seconds;
      expect(seconds === undefined || Math.abs(seconds - (entry?.durationSeconds ?? 0)) > (entry?.toleranceSeconds ?? 0)).toBe(true);
    }
  });

  it('recognises images by their bytes, whatever the name', () => {
    const images = accepted.filter((e) => e.format === 'png' || e.format === 'jpeg');
    expect(images.length).toBeGreaterThan(4);
    for (const entry of images) expect([entry.file, sniffFormat(read(entry.file))]).toEqual([entry.file, entry.format]);
  });

  it('gives no duration for cut or empty headers', () => {
    const wav = read('wav-pcm16-1.0s.wav');
    expect(measure(wav.subarray(0, 30), 'wav')).toBeUndefined(); // inside the fmt chunk
    expect(measure(wav.subarray(0, 2000), 'wav')).toBeUndefined(); // the data chunk declares more than follows
    expect(measure(read('bad-mp3-no-frames.mp3'), 'mp3')).toBeUndefined();
    expect(measure(read('bad-mp4-no-moov.mp4'), 'mp4')).toBeUndefined();
  });
});

describe('independent of the SDK', () => {
  const testing = join(import.meta.dirname, '../../src/testing');

  it('src/testing imports no SDK code: its checks share no parser with the probe they are there to catch', () => {
    const imports = readdirSync(testing)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => [...readFileSync(join(testing, name), 'utf8').matchAll(/from '(\.\.\/[^']+)'/g)].map((m) => `${name}: ${m[1]}`));
    // But signedEvent (webhook.ts), which signs an event with the very code deliveries are signed with: it checks
    // nothing of the SDK's, it hands a receiver's test what the SDK sends.
    const signing = ['webhook.ts: ../schemas.js', 'webhook.ts: ../webhooks/event.js', 'webhook.ts: ../webhooks/sign.js'];
    expect(imports.filter((line) => !signing.includes(line))).toEqual([]);
  });

  it("its rules, written from the spec, agree with the SDK's constants", () => {
    expect([...MODELS]).toEqual([...VIDEO_MODELS]);
    expect(PARTS.audio_reference.seconds).toEqual([LIMITS.minAudioSeconds, LIMITS.maxAudioSeconds]);
    expect(PARTS.video_reference.seconds).toEqual([LIMITS.minVideoSeconds, LIMITS.maxVideoSeconds]);
  });
});
