import type { Format } from './rules.js';

/**
 * Format detection from magic bytes and image sizes from headers, written for the mock alone (it shares no
 * parser with the SDK, so a bug in the SDK's probe shows in a create test). The mock judges uploads the way
 * a server would: by content, never by file name or declared type.
 */

export const ascii = (bytes: Uint8Array, start: number, length: number): string =>
  String.fromCharCode(...bytes.subarray(start, start + length));

export function sniffFormat(bytes: Uint8Array): Format | undefined {
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  // ID3v2 tag, or a bare MPEG audio frame (11-bit frame sync; JPEG's FF D8 does not pass it).
  if (ascii(bytes, 0, 3) === 'ID3' || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) return 'mp3';
  if (bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG') return 'png';
  const box = ascii(bytes, 4, 4);
  if (box === 'ftyp') return ascii(bytes, 8, 4) === 'qt  ' ? 'mov' : 'mp4';
  // Old QuickTime files may start straight with a movie, padding or media box.
  if (box === 'moov' || box === 'wide' || box === 'mdat') return 'mov';
  return undefined;
}

/** Pixel size from a PNG IHDR chunk or a JPEG start-of-frame marker; undefined when the header is cut short or broken. */
export function imageSize(bytes: Uint8Array, format: 'png' | 'jpeg'): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'png') {
    if (bytes.byteLength < 24 || ascii(bytes, 12, 4) !== 'IHDR') return undefined;
    return positive(view.getUint32(16), view.getUint32(20));
  }
  let offset = 2;
  while (offset + 9 <= bytes.byteLength) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return positive(view.getUint16(offset + 7), view.getUint16(offset + 5));
    }
    offset += 2 + view.getUint16(offset + 2);
  }
  return undefined;
}

const positive = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
