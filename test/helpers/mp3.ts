/**
 * The tests' own reading of an MPEG audio frame header (ISO 11172-3, 13818-3 and MPEG-2.5), apart from the SDK's
 * parser, so a test of where splitAudio cuts an MP3 checks it against a second reader rather than against itself.
 */

/** Layer III bitrates in kbps by index: MPEG-1, then MPEG-2 and 2.5. */
const KBPS = {
  1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
/** Sample rates by index, per version bits (0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1; 1 is reserved). */
const RATES: Record<number, number[]> = { 0: [11025, 12000, 8000], 2: [22050, 24000, 16000], 3: [44100, 48000, 32000] };

/** The length in bytes of the Layer III frame whose header starts at `at`, or undefined when none starts there. */
export function mp3FrameLength(bytes: Uint8Array, at = 0): number | undefined {
  const [sync, b1, b2] = [bytes[at], bytes[at + 1], bytes[at + 2]];
  if (sync !== 0xff || b1 === undefined || b2 === undefined || (b1 & 0xe0) !== 0xe0 || ((b1 >> 1) & 3) !== 1) return undefined;
  const versionBits = (b1 >> 3) & 3;
  const sampleRate = RATES[versionBits]?.[(b2 >> 2) & 3];
  const kbps = (versionBits === 3 ? KBPS[1] : KBPS[2])[b2 >> 4];
  if (sampleRate === undefined || !kbps) return undefined;
  // A Layer III frame holds 1152 samples in MPEG-1, 576 otherwise: 144 or 72 bytes per bit per second of rate.
  const bytesPerRate = versionBits === 3 ? 144 : 72;
  return Math.floor((bytesPerRate * kbps * 1000) / sampleRate) + ((b2 >> 1) & 1);
}
