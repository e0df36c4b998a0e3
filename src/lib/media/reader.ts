import type { LocalSource } from '../../internal/byte-source.js';

/**
 * Random access over a {@link LocalSource} that keeps the last window read, so that parsers can ask for a
 * few bytes at a time (a chunk header, a frame header) without a read call for each.
 */
export class ByteReader<S extends Pick<LocalSource, 'size' | 'read'> = LocalSource> {
  private window: Uint8Array = new Uint8Array(0);
  private windowStart = 0;

  constructor(
    readonly source: S,
    /** Bytes fetched per read call; a parser that steps through a whole file (MP3 frames) raises it. */
    public windowSize = 4096,
  ) {}

  get size(): number {
    return this.source.size;
  }

  /** Bytes `[offset, offset + length)`, shorter only where the file ends. */
  async bytes(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.size, offset + length);
    if (offset >= end) return new Uint8Array(0);
    const windowEnd = this.windowStart + this.window.length;
    if (offset < this.windowStart || end > windowEnd) {
      this.window = await this.source.read(offset, Math.max(end - offset, this.windowSize));
      this.windowStart = offset;
    }
    return this.window.subarray(offset - this.windowStart, end - this.windowStart);
  }
}

/** Big-endian and little-endian integer reads at `at` (callers check the length first). */
export const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
export const u32be = (b: Uint8Array, at: number) => u16be(b, at) * 0x10000 + u16be(b, at + 2);
export const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
export const u32le = (b: Uint8Array, at: number) => u16le(b, at) + u16le(b, at + 2) * 0x10000;
/** Four bytes as Latin-1 text (a chunk or box type). */
export const fourcc = (b: Uint8Array, at: number) => String.fromCharCode(...b.subarray(at, at + 4));

/** A {@link LocalSource} that counts what is read through it (for bench/probe.ts). */
export function countingSource(source: LocalSource) {
  const counting = {
    ...source,
    bytesRead: 0,
    reads: 0,
    async read(offset: number, length: number) {
      const bytes = await source.read(offset, length);
      counting.bytesRead += bytes.length;
      counting.reads += 1;
      return bytes;
    },
  };
  return counting;
}
