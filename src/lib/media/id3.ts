import { type ByteReader, fourcc, u32le } from './reader.js';

/** Size of an ID3v2 tag starting at `at` (header, body and optional footer), or 0 when there is none. */
export function id3v2Size(b: Uint8Array, at = 0): number {
  if (b.length < at + 10 || b[at] !== 0x49 || b[at + 1] !== 0x44 || b[at + 2] !== 0x33) return 0; // "ID3"
  const sizeBytes = b.subarray(at + 6, at + 10);
  // The size is "syncsafe" (7 bits per byte); a byte with the top bit set means this is not a tag.
  if (b[at + 3] === 0xff || sizeBytes.some((x) => x & 0x80)) return 0;
  const body = ((sizeBytes[0] ?? 0) << 21) | ((sizeBytes[1] ?? 0) << 14) | ((sizeBytes[2] ?? 0) << 7) | (sizeBytes[3] ?? 0);
  const hasFooter = ((b[at + 5] ?? 0) & 0x10) !== 0; // ID3v2.4 footer flag: 10 more bytes after the body
  return 10 + body + (hasFooter ? 10 : 0);
}

/** Offset of the first byte after the ID3v2 tags at the start of a file (writers sometimes stack several). */
export async function skipId3v2(reader: ByteReader): Promise<number> {
  let at = 0;
  for (let size = id3v2Size(await reader.bytes(0, 10)); size > 0; size = id3v2Size(await reader.bytes(at, 10))) at += size;
  return at;
}

/**
 * Where the audio ends once the tags at the end of an MP3 are set aside: ID3v1 ("TAG", 128 bytes) and an APE tag
 * (found by its 32-byte "APETAGEX" footer), in either order of nesting that writers produce.
 */
export async function endBeforeTrailingTags(reader: ByteReader, audioStart: number): Promise<number> {
  let end = reader.size;
  for (let step = 0; step < 4; step += 1) {
    const before = end;
    if (end - 128 >= audioStart && fourcc(await reader.bytes(end - 128, 4), 0).startsWith('TAG')) end -= 128;
    if (end - 32 >= audioStart) {
      const footer = await reader.bytes(end - 32, 32);
      if (String.fromCharCode(...footer.subarray(0, 8)) === 'APETAGEX') {
        const hasHeader = ((footer[23] ?? 0) & 0x80) !== 0; // the size field excludes the optional 32-byte header
        const total = u32le(footer, 12) + (hasHeader ? 32 : 0);
        if (total >= 32 && end - total >= audioStart) end -= total;
      }
    }
    if (end === before) break;
  }
  return end;
}
