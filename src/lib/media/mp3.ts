import { unreadable } from './failure.js';
import { endBeforeTrailingTags, skipId3v2 } from './id3.js';
import { type MpegFrameHeader, parseMpegHeader } from './mpeg-header.js';
import { type ByteReader, fourcc, u16be, u32be } from './reader.js';
import type { MediaInfo } from './types.js';

/*
 * MP3 duration by hand: mediabunny 1.61 keeps the encoder delay and padding a LAME/Info tag records (our 60.0 s
 * fixture measures 60.192 s, past an inclusive 60 s bound), counts a VBRI header frame as audio, and is 5x off for VBR
 * without a Xing header. A Xing/Info or VBRI header gives the frame count; without one, every frame header is visited
 * (in 64 KB windows: at ~40 µs per read call, one call per frame is too slow).
 */

/** Read size while walking frames: one read call covers ~50-600 frames. */
const WINDOW = 64 * 1024;
/** Read size while searching for a frame. */
const SCAN = 4096;
/** How far past the tags to look for the first frame (some writers pad with zeros). */
const FIRST_FRAME_SEARCH = 64 * 1024;
/** How far to look for the next frame after a damaged one. */
const RESYNC_SEARCH = 8 * 1024;
/** Bytes after the last whole frame that are tolerated (a cut last frame, an unknown trailing tag). */
const TAIL_SLACK = 4 * 1024;

interface FrameCount {
  frames: number;
  /** Samples to drop at the start and the end (LAME/Info gapless tag), 0 when unknown. */
  trim: number;
  /** Byte length the header says the stream has (0 when it does not say). */
  bytes: number;
}

export async function probeMp3(reader: ByteReader): Promise<MediaInfo> {
  const start = await skipId3v2(reader);
  const end = await endBeforeTrailingTags(reader, start);
  const first = await findFrame(reader, start, Math.min(end, start + FIRST_FRAME_SEARCH), end);
  if (!first)
    throw unreadable(start >= reader.size ? 'its ID3 tag runs past the end of the file (truncated)' : 'no MP3 audio frames were found');
  const { header } = first;
  const counted = vbrHeader(await reader.bytes(first.at, header.frameLength), header);
  const available = end - first.at;
  if (counted && counted.bytes > available + header.frameLength) {
    throw unreadable(
      `its header announces ${counted.bytes.toLocaleString('en-US')} bytes of audio but only ${available.toLocaleString('en-US')} are present (truncated)`,
    );
  }
  // Without a header, or with one left stale by an edit (more audio than it counts), measure; a header frame is silent.
  const trusted = counted && (counted.bytes === 0 || counted.bytes >= available - TAIL_SLACK);
  const frames = trusted ? counted.frames : await walkFrames(reader, counted ? first.at + header.frameLength : first.at, end, header);
  const trim = trusted ? counted.trim : 0;
  const samples = frames * header.samplesPerFrame;
  return { kind: 'audio', format: 'mp3', durationSeconds: (trim < samples ? samples - trim : samples) / header.sampleRate };
}

export const sameStream = (a: MpegFrameHeader, b: MpegFrameHeader) =>
  a.layer === b.layer && a.version === b.version && a.sampleRate === b.sampleRate;

/**
 * The first Layer III frame in `[from, to)` that is confirmed by a second one right after it (or by ending exactly at
 * the end of the audio), so that a stray 0xFF byte is not taken for a frame.
 */
export async function findFrame(reader: ByteReader, from: number, to: number, end: number, like?: MpegFrameHeader) {
  // Scanned a small piece at a time: the frame is nearly always at `from`, and the search must not read ahead much.
  for (let base = from; base < to; base += SCAN) {
    const stop = Math.min(to, base + SCAN);
    const span = await reader.bytes(base, stop - base + 3);
    for (let i = span.indexOf(0xff); i >= 0 && base + i < stop; i = span.indexOf(0xff, i + 1)) {
      const header = parseMpegHeader(span, i);
      if (header?.layer !== 3 || (like && !sameStream(header, like))) continue;
      const next = base + i + header.frameLength;
      if (next === end) return { at: base + i, header };
      const following = next < end ? parseMpegHeader(await reader.bytes(next, 4)) : undefined;
      if (following && sameStream(header, following)) return { at: base + i, header };
    }
  }
  return undefined;
}

/** Frame count from a Xing/Info header (with the LAME gapless trim when present) or a VBRI header in the first frame. */
export function vbrHeader(frame: Uint8Array, header: MpegFrameHeader): FrameCount | undefined {
  const sideInfo = header.version === 1 ? (header.mono ? 17 : 32) : header.mono ? 9 : 17;
  const x = 4 + sideInfo;
  if (fourcc(frame, x) === 'Xing' || fourcc(frame, x) === 'Info') {
    const flags = u32be(frame, x + 4);
    // Optional fields in this order, present when their flag is set: frames (4 bytes), bytes (4), seek table (100), quality (4).
    const bytesAt = x + 8 + (flags & 1 ? 4 : 0);
    const frames = flags & 1 ? u32be(frame, x + 8) : 0;
    const bytes = flags & 2 ? u32be(frame, bytesAt) : 0;
    const lameAt = bytesAt + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0);
    return frames === 0 ? undefined : { frames, bytes, trim: lameTrim(frame, lameAt) };
  }
  if (fourcc(frame, 36) === 'VBRI') {
    const frames = u32be(frame, 36 + 14);
    return frames > 0 ? { frames, bytes: u32be(frame, 36 + 10), trim: 0 } : undefined;
  }
  return undefined;
}

/**
 * Encoder delay + end padding, in samples, from the LAME extension that LAME and FFmpeg write after the Xing fields:
 * a 9-byte encoder name, then at byte 21 two 12-bit counts. Anything that does not look like that tag is ignored.
 */
function lameTrim(frame: Uint8Array, at: number): number {
  if (frame.length < at + 24 || !/^[A-Za-z]{4}/.test(String.fromCharCode(...frame.subarray(at, at + 4)))) return 0;
  const packed = u16be(frame, at + 21) * 256 + (frame[at + 23] ?? 0);
  return (packed >> 12) + (packed & 0xfff);
}

/** Count frames from `at` to `end`, stepping by frame lengths; gaps of damaged bytes are skipped and must stay small. */
async function walkFrames(reader: ByteReader, from: number, end: number, like: MpegFrameHeader): Promise<number> {
  reader.windowSize = WINDOW;
  let at = from;
  let frames = 0;
  let skipped = 0;
  while (at + 4 <= end) {
    const header = parseMpegHeader(await reader.bytes(at, 4));
    if (header && sameStream(header, like)) {
      if (at + header.frameLength > end) break; // a cut last frame: not playable, not counted
      frames += 1;
      at += header.frameLength;
      continue;
    }
    const next = await findFrame(reader, at + 1, Math.min(end, at + RESYNC_SEARCH), end, like);
    if (!next) break;
    skipped += next.at - at;
    at = next.at;
  }
  if (end - at > TAIL_SLACK) {
    throw unreadable(`its MP3 frames break off at byte ${at.toLocaleString('en-US')} of ${end.toLocaleString('en-US')} (corrupt)`);
  }
  // A decoder skips a damaged frame or two; more than 1% of the stream missing would make the duration a guess.
  if (skipped > Math.max(TAIL_SLACK, (end - from) / 100)) {
    throw unreadable(`${skipped.toLocaleString('en-US')} bytes between its frames are not MP3 audio (corrupt)`);
  }
  return frames;
}
