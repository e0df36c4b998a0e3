import { crc32 } from './crc32.js';
import { unreadable } from './failure.js';
import { type ByteReader, fourcc, u16be, u32be } from './reader.js';
import type { MediaInfo } from './types.js';

/*
 * Image dimensions from headers, by hand: a PNG's IHDR and a JPEG's frame header (SOF) are a few bytes each, and
 * mediabunny does not read still images. Pixel data is never read.
 */

/** Bounds on header walks, so that a corrupt file costs milliseconds, not seconds. */
const MAX_CHUNKS = 20_000;
const MAX_SEGMENTS = 10_000;
const IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];

export async function probePng(reader: ByteReader): Promise<MediaInfo> {
  const head = await reader.bytes(0, 33); // signature, IHDR length and type, 13 bytes of IHDR, CRC
  if (head.length < 33) throw unreadable('the file ends inside its header (truncated)');
  if (u32be(head, 8) !== 13 || fourcc(head, 12) !== 'IHDR') throw unreadable('it does not start with an IHDR chunk (corrupt)');
  if (crc32(head.subarray(12, 29)) !== u32be(head, 29)) throw unreadable('its IHDR chunk fails its checksum (corrupt)');
  const width = u32be(head, 16);
  const height = u32be(head, 20);
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff)
    throw unreadable(`it declares an impossible size of ${width}x${height}`);
  await checkPngComplete(reader);
  return { kind: 'image', format: 'png', width, height };
}

/**
 * A complete PNG ends with IEND. When the last 12 bytes are not it, walk the chunk headers to tell a cut-off file
 * (unreadable) from one with bytes appended after IEND (fine).
 */
async function checkPngComplete(reader: ByteReader): Promise<void> {
  const tail = await reader.bytes(reader.size - 12, 12);
  if (IEND.every((x, i) => tail[i] === x)) return;
  let at = 8;
  for (let count = 0; count < MAX_CHUNKS; count += 1) {
    const header = await reader.bytes(at, 8);
    if (header.length < 8) break;
    const type = fourcc(header, 4);
    if (!/^[A-Za-z]{4}$/.test(type)) throw unreadable(`it has a damaged chunk at byte ${at.toLocaleString('en-US')} (corrupt)`);
    if (type === 'IEND') return;
    at += 12 + u32be(header, 0); // length, type, data, CRC
  }
  // Out of the loop without IEND: the walk ran off the end (truncated), or hit the chunk cap (given the benefit of the doubt).
  if (reader.size - at < 8) throw unreadable('it ends before its IEND chunk (truncated)');
}

/** Start-of-frame markers (baseline, extended, progressive, lossless, arithmetic, JPEG-LS); 0xC4, 0xC8, 0xCC are not. */
const isStartOfFrame = (m: number) => (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) || m === 0xf7;
/** Markers without a length field. */
const isStandalone = (m: number) => m === 0x01 || (m >= 0xd0 && m <= 0xd8);

/**
 * Walk the segments after SOI (APPn such as EXIF and ICC, DQT, DHT...) by their lengths up to the frame header.
 * Stored dimensions are reported; an EXIF orientation is not applied.
 */
export async function probeJpeg(reader: ByteReader): Promise<MediaInfo> {
  let at = 2;
  for (let step = 0; at < reader.size; step += 1) {
    if (step === MAX_SEGMENTS) throw unreadable('it has no frame header among its first segments (corrupt)');
    let b = await reader.bytes(at, 4);
    if (b[0] !== 0xff) throw unreadable(`it has no segment marker at byte ${at.toLocaleString('en-US')} (corrupt)`);
    if (b[1] === 0xff) {
      at += 1; // fill byte before a marker
      continue;
    }
    const marker = b[1] ?? -1;
    if (marker === 0xda || marker === 0xd9) throw unreadable('it has no frame header before its image data (corrupt)');
    if (isStandalone(marker)) {
      at += 2;
      continue;
    }
    if (isStartOfFrame(marker)) {
      b = await reader.bytes(at, 9); // marker, length, precision, height, width
      if (b.length < 9) break;
      const height = u16be(b, 5);
      const width = u16be(b, 7);
      if (width === 0 || height === 0) throw unreadable(`its frame header gives no usable size (${width}x${height})`);
      return { kind: 'image', format: 'jpeg', width, height };
    }
    if (b.length < 4) break;
    const length = u16be(b, 2); // counts itself, not the marker
    if (length < 2) throw unreadable(`it has a damaged segment at byte ${at.toLocaleString('en-US')} (corrupt)`);
    at += 2 + length;
  }
  throw unreadable('the file ends before its frame header (truncated)');
}
