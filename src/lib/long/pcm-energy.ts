import type { Fmt } from '../media/wav.js';

/** Reads one sample at a byte offset of a block, as a value in about -1..1. */
type SampleReader = (view: DataView, at: number) => number;

/** G.711 A-law and mu-law to linear (ITU-T G.711), scaled to -1..1. */
function alaw(byte: number): number {
  const a = byte ^ 0x55;
  const exponent = (a >> 4) & 7;
  const mantissa = a & 0x0f;
  const magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  return ((a & 0x80 ? 1 : -1) * magnitude) / 32768;
}
function mulaw(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
  return ((u & 0x80 ? -1 : 1) * magnitude) / 32768;
}

/** Sample readers of the PCM-like WAV codings, by format tag and bytes per sample. */
const READERS: Record<string, SampleReader> = {
  '1/1': (v, at) => (v.getUint8(at) - 128) / 128,
  '1/2': (v, at) => v.getInt16(at, true) / 32768,
  '1/3': (v, at) => ((v.getInt8(at + 2) << 16) | (v.getUint8(at + 1) << 8) | v.getUint8(at)) / 8388608,
  '1/4': (v, at) => v.getInt32(at, true) / 2147483648,
  '3/4': (v, at) => v.getFloat32(at, true),
  '3/8': (v, at) => v.getFloat64(at, true),
  '6/1': (v, at) => alaw(v.getUint8(at)),
  '7/1': (v, at) => mulaw(v.getUint8(at)),
};

/** How to read one sample of a PCM-like WAV (integer 8 to 32 bits, float 32/64, A-law, mu-law); undefined otherwise. */
export const sampleReader = (fmt: Fmt): SampleReader | undefined => READERS[`${fmt.tag}/${fmt.blockAlign / fmt.channels}`];

/**
 * Mean square of each run of `frameSamples` samples in `bytes` (whole blocks of `fmt`), all channels together.
 * A last partial run counts as a frame of its own.
 */
export function frameEnergies(bytes: Uint8Array, fmt: Fmt, read: SampleReader, frameSamples: number): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const step = fmt.blockAlign / fmt.channels;
  const blocks = Math.floor(bytes.byteLength / fmt.blockAlign);
  const energies: number[] = [];
  for (let first = 0; first < blocks; first += frameSamples) {
    const last = Math.min(blocks, first + frameSamples);
    let sum = 0;
    for (let at = first * fmt.blockAlign, end = last * fmt.blockAlign; at < end; at += step) {
      const x = read(view, at);
      sum += x * x;
    }
    energies.push(sum / ((last - first) * fmt.channels));
  }
  return energies;
}
