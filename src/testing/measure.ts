import type { Format } from './rules.js';

/*
 * The mock's own readers of uploads, written from the format specifications and sharing no code with the SDK's
 * probe, so a bug in the probe shows in a create test. Like a server, they judge the bytes, never a file's name or
 * declared type. Each is small on purpose, and so reads less than the SDK does:
 *
 * - Format: by magic bytes. Images: the size in a PNG IHDR chunk or a JPEG start-of-frame marker.
 * - WAV: the data chunk's size over the fmt chunk's byte rate, or the fact chunk's sample count when there is one.
 *   Exact for PCM; for a compressed WAV without a fact chunk, as close as its average byte rate.
 * - MP3: Layer III frames counted from the first one to the first byte that is not a frame (a trailing tag, or
 *   damage). A Xing/Info or VBRI header frame is not audio; a LAME tag's encoder delay and padding are taken off.
 *   Without such a tag the count includes them: up to about 0.15 s more than the audible length.
 * - MP4/MOV: the movie header's duration (mvhd; a fragmented file without one is unreadable here) and the first
 *   track with a picture size (tkhd), its sides swapped when the track is turned a quarter.
 *
 * test/mock-measure.test.ts holds them to the known formats, sizes and durations of test/fixtures/media.
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

/** Pixel size from the IHDR chunk; undefined when it is cut short or broken (as for every reader below). */
function png(bytes: Uint8Array, view: DataView): Measured | undefined {
  if (bytes.byteLength < 24 || ascii(bytes, 12, 4) !== 'IHDR') return undefined;
  return positive(view.getUint32(16), view.getUint32(20));
}

/** Pixel size from the start-of-frame marker. */
function jpeg(bytes: Uint8Array, view: DataView): Measured | undefined {
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

const positive = (width: number, height: number) => (width > 0 && height > 0 ? { seconds: 0, width, height } : undefined);

export interface Measured {
  /** 0 for an image. */
  seconds: number;
  /** Display size, for an image or a video. */
  width?: number;
  height?: number;
}

/** The duration and picture size of an upload; undefined when its headers cannot be read. */
export function measure(bytes: Uint8Array, format: Format): Measured | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const measured = { wav, mp3, mp4: movie, mov: movie, png, jpeg }[format](bytes, view);
  return measured && Number.isFinite(measured.seconds) && measured.seconds >= 0 ? measured : undefined;
}

function wav(bytes: Uint8Array, view: DataView): Measured | undefined {
  let sampleRate = 0;
  let byteRate = 0;
  let samples = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = ascii(bytes, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && size >= 16 && at + 24 <= bytes.length) {
      sampleRate = view.getUint32(at + 12, true);
      byteRate = view.getUint32(at + 16, true);
    } else if (id === 'fact' && at + 12 <= bytes.length) samples = view.getUint32(at + 8, true);
    else if (id === 'data') {
      const present = bytes.length - at - 8;
      // 0 and 0xFFFFFFFF are what a writer that cannot seek back leaves: the audio runs to the end of the file.
      const streamed = size === 0 || size === 0xffffffff;
      if (!streamed && size > present) return undefined; // truncated
      if (!(sampleRate > 0 && byteRate > 0)) return undefined; // no usable fmt chunk before the audio
      return { seconds: samples > 0 && samples < 0xffffffff ? samples / sampleRate : (streamed ? present : size) / byteRate };
    }
    at += 8 + size + (size % 2); // a chunk of odd size is followed by a pad byte
  }
  return undefined;
}

/** Kilobits a second by bitrate index: MPEG-1 Layer III, then MPEG-2 and 2.5 Layer III. */
const KBPS = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

/** The Layer III frame header at `at`, or undefined if there is none. */
function frame(bytes: Uint8Array, at: number) {
  const [b0, b1 = 0, b2 = 0, b3 = 0] = bytes.subarray(at, at + 4);
  const version = (b1 >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5, 1 reserved
  const bitrate = KBPS[version === 3 ? 0 : 1]?.[b2 >> 4];
  const rateIndex = (b2 >> 2) & 3;
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0 || version === 1 || ((b1 >> 1) & 3) !== 1 || !bitrate || rateIndex === 3) return undefined;
  const sampleRate = ([44100, 48000, 32000][rateIndex] as number) >> [2, 0, 1, 0][version]!;
  const samples = version === 3 ? 1152 : 576;
  const length = Math.floor((samples * bitrate * 125) / sampleRate) + ((b2 >> 1) & 1); // 125 = 1000 bits / 8
  // Where a Xing/Info tag would start: after the header and the side information.
  const sideInfo = 4 + (version === 3 ? (b3 >> 6 === 3 ? 17 : 32) : b3 >> 6 === 3 ? 9 : 17);
  return { length, samples, sampleRate, sideInfo };
}

function mp3(bytes: Uint8Array): Measured | undefined {
  let at = 0;
  // ID3v2 tags: a 10-byte header, a size of four 7-bit bytes, and a 10-byte footer when flagged.
  while (ascii(bytes, at, 3) === 'ID3' && at + 10 <= bytes.length) {
    const size = bytes.subarray(at + 6, at + 10).reduce((sum, byte) => sum * 128 + (byte & 0x7f), 0);
    at += 10 + size + ((bytes[at + 5] ?? 0) & 0x10 ? 10 : 0);
  }
  // The first frame is where two frames follow each other (writers may pad before it; a lone 0xFF is not one).
  const limit = Math.min(bytes.length, at + 64 * 1024);
  const confirmed = (i: number) => {
    const f = frame(bytes, i);
    return f && (i + f.length === bytes.length || frame(bytes, i + f.length)) ? f : undefined;
  };
  while (at < limit && !confirmed(at)) at += 1;
  const first = confirmed(at);
  if (!first) return undefined;
  let trim = 0;
  const xing = ['Xing', 'Info'].includes(ascii(bytes, at + first.sideInfo, 4));
  if (xing || ascii(bytes, at + 36, 4) === 'VBRI') {
    trim = xing ? lameTrim(bytes, at + first.sideInfo) : 0;
    at += first.length; // the header frame is silence, not audio
  }
  let frames = 0;
  for (let f = frame(bytes, at); f && at + f.length <= bytes.length; f = frame(bytes, at)) {
    frames += 1;
    at += f.length;
  }
  return frames > 0 ? { seconds: Math.max(0, frames * first.samples - trim) / first.sampleRate } : undefined;
}

/** Encoder delay plus end padding in samples, from the LAME tag after the Xing fields (0 when there is none). */
function lameTrim(bytes: Uint8Array, xing: number): number {
  const flags = bytes[xing + 7] ?? 0;
  // The optional Xing fields: frame count, byte count, a 100-byte seek table, a quality figure.
  const lame = xing + 8 + (flags & 1 ? 4 : 0) + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0);
  if (!/^[A-Za-z]{4}$/.test(ascii(bytes, lame, 4))) return 0;
  // Two 12-bit numbers in the three bytes at 21: the delay, then the padding.
  const packed = ((bytes[lame + 21] ?? 0) << 16) | ((bytes[lame + 22] ?? 0) << 8) | (bytes[lame + 23] ?? 0);
  return (packed >> 12) + (packed & 0xfff);
}

/** The boxes in `[from, to)`: their type and where their contents start and end. Stops at a box that does not fit. */
function* boxes(bytes: Uint8Array, view: DataView, from: number, to: number) {
  for (let at = from; at + 8 <= to; ) {
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1 && at + 16 <= to) [size, header] = [Number(view.getBigUint64(at + 8)), 16];
    else if (size === 0) size = to - at; // the last box, running to the end
    if (size < header || at + size > to) return;
    yield { type: ascii(bytes, at + 4, 4), start: at + header, end: at + size };
    at += size;
  }
}

function movie(bytes: Uint8Array, view: DataView): Measured | undefined {
  const find = (type: string, from: number, to: number) => [...boxes(bytes, view, from, to)].find((box) => box.type === type);
  const moov = find('moov', 0, bytes.length);
  const mvhd = moov && find('mvhd', moov.start, moov.end);
  if (!moov || !mvhd || mvhd.end - mvhd.start < 32) return undefined;
  // Version 1 widens the times to 64 bits: timescale at 20 and duration at 24, else at 12 and 16.
  const v1 = bytes[mvhd.start] === 1;
  const timescale = view.getUint32(mvhd.start + (v1 ? 20 : 12));
  const duration = v1 ? Number(view.getBigUint64(mvhd.start + 24)) : view.getUint32(mvhd.start + 16);
  if (timescale === 0 || duration === 0) return undefined;
  for (const trak of boxes(bytes, view, moov.start, moov.end)) {
    const tkhd = trak.type === 'trak' ? find('tkhd', trak.start, trak.end) : undefined;
    // The matrix, then width and height in 16.16 fixed point; version 1 moves them 12 bytes on.
    const matrix = tkhd && tkhd.start + (bytes[tkhd.start] === 1 ? 52 : 40);
    if (!tkhd || matrix === undefined || matrix + 44 > tkhd.end) continue;
    const width = Math.round(view.getUint32(matrix + 36) / 65536);
    const height = Math.round(view.getUint32(matrix + 40) / 65536);
    if (width === 0 || height === 0) continue; // a sound track
    const quarterTurn = view.getInt32(matrix) === 0; // matrix a = cos(angle): 0 at 90 and 270 degrees
    return { seconds: duration / timescale, width: quarterTurn ? height : width, height: quarterTurn ? width : height };
  }
  return undefined;
}
