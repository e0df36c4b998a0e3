import { unreadable } from '../media/failure.js';
import { endBeforeTrailingTags, id3v2Size } from '../media/id3.js';
import { findFrame, sameStream, vbrHeader } from '../media/mp3.js';
import { type MpegFrameHeader, parseMpegHeader } from '../media/mpeg-header.js';
import type { ByteReader } from '../media/reader.js';

/** The audio frames of an MP3, in order: where each lies and how much sound it codes. */
export interface Mp3Frames {
  /** Header of the first audio frame; every frame listed has the same version, layer and sample rate. */
  header: MpegFrameHeader;
  offsets: number[];
  lengths: number[];
  /** A rough energy of each frame (see {@link estimatedEnergy}): low in pauses. */
  energy: number[];
}

const WINDOW = 64 * 1024;
/** Frame header, CRC and the longest side info (MPEG-1 stereo, 32 bytes). */
const HEAD_BYTES = 4 + 2 + 32;

/**
 * Walk every frame of an MP3 (the ID3 and APE tags around the audio and a Xing/Info/VBRI header frame left out;
 * damaged bytes between frames skipped, as a decoder would). The file is read once, front to back, in 64 KB windows.
 */
export async function scanMp3Frames(reader: ByteReader): Promise<Mp3Frames> {
  let start = 0;
  for (let size = id3v2Size(await reader.bytes(0, 10)); size > 0; size = id3v2Size(await reader.bytes(start, 10))) start += size;
  const end = await endBeforeTrailingTags(reader, start);
  const first = await findFrame(reader, start, Math.min(end, start + WINDOW), end);
  if (!first) throw unreadable('no MP3 audio frames were found');
  const { header } = first;
  reader.windowSize = WINDOW;
  const frames: Mp3Frames = { header, offsets: [], lengths: [], energy: [] };
  // A Xing/Info/VBRI frame holds no sound, and its counts would be wrong for a segment: dropped.
  let at = vbrHeader(await reader.bytes(first.at, header.frameLength), header) ? first.at + header.frameLength : first.at;
  while (at + 4 <= end) {
    const head = await reader.bytes(at, HEAD_BYTES);
    const found = parseMpegHeader(head);
    if (found && sameStream(found, header)) {
      if (at + found.frameLength > end) break; // a cut last frame: not playable, not kept
      frames.offsets.push(at);
      frames.lengths.push(found.frameLength);
      frames.energy.push(estimatedEnergy(head, found));
      at += found.frameLength;
      continue;
    }
    const next = await findFrame(reader, at + 1, Math.min(end, at + 8 * 1024), end, header);
    if (!next) break;
    at = next.at;
  }
  return frames;
}

/** `n` bits of `b` from bit `at`, most significant first. */
function bitsAt(b: Uint8Array, at: number, n: number): number {
  let value = 0;
  for (let i = at; i < at + n; i += 1) value = value * 2 + (((b[i >> 3] ?? 0) >> (7 - (i & 7))) & 1);
  return value;
}

/**
 * A rough energy of the frame from its side info alone: per granule and channel, `big_values` (coefficient pairs
 * coded beyond +-1) times the squared quantiser step, 2^((global_gain - 210) / 4). Only good for comparing frames:
 * digital silence gives 0, a noise floor a little, speech a lot.
 *
 * Node has no MP3 decoder (mediabunny's needs WebCodecs), and one would be more code than this feature. Checked
 * against decoded LAME audio (8, 24 and 128 kbit/s, clean and with noise 40 dB down), every cut fell in a pause;
 * each field alone failed on one (`big_values` in noise, `global_gain` in digital silence, `part2_3_length` at CBR).
 */
export function estimatedEnergy(frame: Uint8Array, header: MpegFrameHeader): number {
  const crc = ((frame[1] ?? 0) & 1) === 0 ? 16 : 0; // protection bit 0: a 16-bit CRC follows the header
  const channels = header.mono ? 1 : 2;
  const mpeg1 = header.version === 1;
  // main_data_begin, private bits, then (MPEG-1 only) scfsi; then one 59-bit (MPEG-1) or 63-bit block per granule
  // and channel: part2_3_length (12 bits), big_values (9), global_gain (8), ...
  let at = 32 + crc + (mpeg1 ? 9 + (header.mono ? 5 : 3) + 4 * channels : 8 + (header.mono ? 1 : 2));
  let total = 0;
  for (let i = 0; i < (mpeg1 ? 2 : 1) * channels; i += 1) {
    total += bitsAt(frame, at + 12, 9) * 2 ** ((bitsAt(frame, at + 21, 8) - 210) / 2);
    at += mpeg1 ? 59 : 63;
  }
  return total;
}
