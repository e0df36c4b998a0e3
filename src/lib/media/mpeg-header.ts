/** One MPEG audio frame header (the 4 bytes every frame starts with). Only Layer III gets lengths. */
export interface MpegFrameHeader {
  /** 1 = MPEG-1, 2 = MPEG-2, 2.5 = MPEG-2.5. */
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  sampleRate: number;
  /** Kilobits per second. */
  bitrate: number;
  /** PCM samples per channel the frame decodes to. */
  samplesPerFrame: number;
  /** Whole frame length in bytes, header included. */
  frameLength: number;
  mono: boolean;
}

const LAYER3_KBPS_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const LAYER3_KBPS_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES = { 1: [44100, 48000, 32000], 2: [22050, 24000, 16000], 2.5: [11025, 12000, 8000] };
const VERSIONS = [2.5, undefined, 2, 1] as const;
const LAYERS = [undefined, 3, 2, 1] as const;

/**
 * Parse a frame header at `at`, or return undefined when the bytes cannot be one. Free-format bitrate (index 0)
 * is refused: its frames have no length in the header, and no encoder in use writes it.
 */
export function parseMpegHeader(b: Uint8Array, at = 0): MpegFrameHeader | undefined {
  const b1 = b[at + 1];
  const b2 = b[at + 2];
  const b3 = b[at + 3];
  if (b[at] !== 0xff || b1 === undefined || b2 === undefined || b3 === undefined || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = VERSIONS[(b1 >> 3) & 3];
  const layer = LAYERS[(b1 >> 1) & 3];
  const bitrateIndex = b2 >> 4;
  const sampleRate = version === undefined ? undefined : SAMPLE_RATES[version][(b2 >> 2) & 3];
  // Emphasis 2 is reserved: refusing it cuts false syncs inside random data.
  if (!version || !layer || !sampleRate || bitrateIndex === 0 || bitrateIndex === 15 || (b3 & 3) === 2) return undefined;
  const padding = (b2 >> 1) & 1;
  const samplesPerFrame = layer === 3 ? (version === 1 ? 1152 : 576) : layer === 2 ? 1152 : 384;
  // Lengths are only needed for Layer III; other layers are only ever named, never measured.
  const bitrate = layer === 3 ? ((version === 1 ? LAYER3_KBPS_V1 : LAYER3_KBPS_V2)[bitrateIndex] ?? 0) : 0;
  const frameLength = Math.floor(((samplesPerFrame / 8) * bitrate * 1000) / sampleRate) + padding;
  return { version, layer, sampleRate, bitrate, samplesPerFrame, frameLength, mono: b3 >> 6 === 3 };
}

/** ADTS (raw AAC) shares the 12-bit sync with MPEG audio but has layer bits 00. */
export function isAdtsHeader(b: Uint8Array, at = 0): boolean {
  return b[at] === 0xff && ((b[at + 1] ?? 0) & 0xf6) === 0xf0;
}
