import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaValidationError } from '../../src/errors.js';
import { probeMedia } from '../../src/media/index.js';
import { toFile } from '../../src/uploads.js';

/*
 * Mutated and truncated media must only ever resolve with a well-formed MediaInfo or reject with a
 * MediaValidationError (unsupported_format or unreadable_media): no other throw, no hang.
 */

const DIR = join(import.meta.dirname, '../fixtures/media');
const SEEDS = [
  'wav-pcm16-0.9s.wav',
  'wav-ima-adpcm.wav',
  'wav-odd-chunk-padded.wav',
  'wav-streamed-ffffffff.wav',
  'mp3-mpeg2-vbr-xing.mp3',
  'mp3-mpeg2-vbr-noxing.mp3',
  'mp3-vbri.mp3',
  'mp3-id3v24-footer.mp3',
  'mp3-ape-id3v1.mp3',
  'png-64x36.png',
  'jpeg-64x36.jpg',
  'jpeg-progressive.jpg',
  'mp4-10s-faststart.mp4',
  'mp4-10s-moov-end.mp4',
  'mp4-fragmented.mp4',
  'mov-10.4s.mov',
  'mp4-rotated-90.mp4',
];
const seeds = await Promise.all(SEEDS.map(async (name) => new Uint8Array(await readFile(join(DIR, name)))));
const TIME_LIMIT_MS = 3000;

/** A position: mostly inside the headers (first 1 KB), sometimes anywhere, as a fraction or an offset. */
const position = fc.oneof(fc.nat({ max: 1024 }), fc.nat({ max: 1024 }), fc.double({ min: 0, max: 1, noNaN: true }));
const at = (p: number, length: number) => (length === 0 ? 0 : Number.isInteger(p) && p >= 1 ? p % length : Math.floor(p * length));

type Mutation = (bytes: Uint8Array) => Uint8Array;
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(position, fc.integer({ min: 0, max: 255 })).map(([p, value]) => (b: Uint8Array) => {
    const copy = b.slice();
    if (copy.length) copy[at(p, copy.length)] = value;
    return copy;
  }),
  fc.tuple(position, fc.nat({ max: 7 })).map(([p, bit]) => (b: Uint8Array) => {
    const copy = b.slice();
    const i = at(p, copy.length);
    if (copy.length) copy[i] = (copy[i] ?? 0) ^ (1 << bit);
    return copy;
  }),
  position.map((p) => (b: Uint8Array) => b.slice(0, at(p, b.length))),
  fc.tuple(position, fc.uint8Array({ maxLength: 64 })).map(([p, insert]) => (b: Uint8Array) => {
    const i = at(p, b.length);
    return Uint8Array.from([...b.subarray(0, i), ...insert, ...b.subarray(i)]);
  }),
  fc.tuple(position, fc.nat({ max: 4096 })).map(([p, count]) => (b: Uint8Array) => {
    const i = at(p, b.length);
    return Uint8Array.from([...b.subarray(0, i), ...b.subarray(i + count)]);
  }),
  // Four bytes set to extremes: where a size field lives this makes it huge, zero or negative-looking.
  fc.tuple(position, fc.constantFrom(0x00, 0xff, 0x7f)).map(([p, value]) => (b: Uint8Array) => {
    const copy = b.slice();
    copy.fill(value, at(p, copy.length), at(p, copy.length) + 4);
    return copy;
  }),
);

async function withinTimeLimit<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`probe did not settle within ${TIME_LIMIT_MS} ms`)), TIME_LIMIT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function expectWellFormed(info: unknown) {
  expect(info).toMatchObject({
    kind: expect.stringMatching(/^(audio|image|video)$/),
    format: expect.stringMatching(/^(wav|mp3|jpeg|png|mp4|mov)$/),
  });
  const { durationSeconds, width, height } = info as Record<string, unknown>;
  if (durationSeconds !== undefined) expect(Number.isFinite(durationSeconds) && (durationSeconds as number) >= 0).toBe(true);
  for (const size of [width, height]) if (size !== undefined) expect(Number.isInteger(size) && (size as number) > 0).toBe(true);
}

describe('probeMedia on mutated media', () => {
  it('resolves a MediaInfo or rejects with a MediaValidationError, never anything else, never hangs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: seeds.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (seed, mutations) => {
        const bytes = mutations.reduce<Uint8Array>((b, mutate) => mutate(b), seeds[seed]!);
        const outcome = await withinTimeLimit(probeMedia(toFile(bytes, SEEDS[seed]!))).then(
          (info) => ({ info }),
          (error: unknown) => ({ error }),
        );
        if ('info' in outcome) return expectWellFormed(outcome.info);
        expect(outcome.error).toBeInstanceOf(MediaValidationError);
        const { issues } = outcome.error as MediaValidationError;
        expect(issues).toHaveLength(1);
        expect(['unsupported_format', 'unreadable_media']).toContain(issues[0]?.code);
      }),
      { numRuns: 400 },
    );
  });

  it('settles the same way for random bytes behind a recognised signature', async () => {
    const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
    const signatures = [
      ascii('RIFF\x24\x00\x00\x00WAVEfmt '),
      ascii('ID3\x04\x00\x00'),
      Uint8Array.of(0xff, 0xfb, 0x90, 0x64),
      Uint8Array.of(0xff, 0xf3),
      ascii('\x00\x00\x00\x18ftypisom'),
      ascii('\x00\x00\x00\x14ftypqt  '),
      ascii('\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR'),
      Uint8Array.of(0xff, 0xd8, 0xff),
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...signatures), fc.uint8Array({ maxLength: 2048 }), async (signature, rest) => {
        const outcome = await withinTimeLimit(probeMedia(Uint8Array.from([...signature, ...rest]))).then(
          (info) => ({ info }),
          (error: unknown) => ({ error }),
        );
        if ('info' in outcome) expectWellFormed(outcome.info);
        else expect(outcome.error).toBeInstanceOf(MediaValidationError);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts at every length of a small file settle the same way', async () => {
    for (const name of ['jpeg-progressive.jpg', 'mp3-vbri.mp3']) {
      const bytes = seeds[SEEDS.indexOf(name)]!;
      for (let length = 0; length < Math.min(bytes.length, 600); length += 1) {
        await withinTimeLimit(probeMedia(bytes.subarray(0, length))).catch((error: unknown) => {
          expect(error).toBeInstanceOf(MediaValidationError);
        });
      }
    }
  });
});
