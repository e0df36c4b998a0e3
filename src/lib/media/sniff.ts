import { unreadable } from './failure.js';
import { skipId3v2 } from './id3.js';
import { sameStream } from './mp3.js';
import { isAdtsHeader, parseMpegHeader } from './mpeg-header.js';
import { type ByteReader, fourcc, u32be } from './reader.js';
import type { MediaFormat } from './types.js';

// Not mediabunny's format detection: it would load 18 MB for every create (platform/node.ts) and names only
// the containers it can read, where a user needs to hear "this is FLAC audio" of any file before an upload.

/** What the first bytes say a file is: one of the accepted formats, or a description of something else. */
export type Sniffed = { format: MediaFormat } | { other: string };

/**
 * Formats that are named, never accepted, by fixed bytes: patterns over the head read as Latin-1 (one character per
 * byte), tried in order after the accepted containers, whose signatures some of these could otherwise shadow.
 */
const SIGNATURES: [RegExp, string][] = [
  [/^(RF64|BW64)/, 'RF64 (64-bit WAV) audio'],
  [/^RIFX/, 'big-endian (RIFX) WAV audio'],
  [/^\x1aE\xdf\xa3.{0,56}webm/s, 'a WebM file'],
  [/^\x1aE\xdf\xa3/, 'a Matroska (MKV) file'],
  [/^OggS.{24}\x01vorbis/s, 'Vorbis audio in an Ogg container'],
  [/^OggS.{24}OpusHead/s, 'Opus audio in an Ogg container'],
  [/^OggS.{24}\x7fFLAC/s, 'FLAC audio in an Ogg container'],
  [/^OggS.{24}Speex/s, 'Speex audio in an Ogg container'],
  [/^OggS.{24}\x80theora/s, 'Theora video in an Ogg container'],
  [/^OggS/, 'an Ogg file'],
  [/^0&\xb2u\x8ef\xcf\x11/, 'a Windows Media (ASF) file'],
  [/^FLV\x01/, 'a Flash (FLV) video'],
  [/^G.{187}G.{187}G/s, 'an MPEG transport stream'],
  [/^\0\0\x01\xba/, 'an MPEG program stream'],
  [/^fLaC/, 'FLAC audio'],
  [/^FORM.{4}AIF[FC]/s, 'AIFF audio'],
  [/^caff/, 'Core Audio (CAF) audio'],
  [/^#!AMR/, 'AMR audio'],
  [/^\.snd/, 'Sun AU audio'],
  [/^wvpk/, 'WavPack audio'],
  [/^MAC /, "Monkey's Audio (APE)"],
  [/^MThd/, 'a MIDI file'],
  [/^GIF8/, 'a GIF image'],
  [/^BM.{4}\0{4}/s, 'a BMP image'],
  [/^(II\*\0|MM\0\*)/, 'a TIFF image'],
  [/^8BPS/, 'a Photoshop (PSD) image'],
  [/^\0\0\0\x0cjP {2}/, 'a JPEG 2000 image'],
  [/^(\xff\x0a|\0\0\0\x0cJXL )/, 'a JPEG XL image'],
  [/^\0\0\x01\0[^\0]../s, 'an ICO image'],
];

const RIFF_TYPES: Record<string, string> = { 'AVI ': 'an AVI video', WEBP: 'a WebP image' };

/** ISOBMFF brands that mean a still image rather than a movie. */
const IMAGE_BRANDS: [RegExp, string][] = [
  [/^(hei[cxms]|hevc)$/, 'a HEIC image'],
  [/^m[is]f1$/, 'a HEIF image'],
  [/^avi[fs]$/, 'an AVIF image'],
  [/^crx $/, 'a Canon CR3 raw image'],
];
const imageBrand = (brand = '') => IMAGE_BRANDS.find(([pattern]) => pattern.test(brand))?.[1];

/** Top-level box types a brand-less (pre-`ftyp`) QuickTime movie may start with. */
const CLASSIC_QUICKTIME_BOXES = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** Look at the bytes (never the name) and say what the file is. Reads the first 4 KB, plus past an ID3v2 tag. */
export async function sniff(reader: ByteReader): Promise<Sniffed> {
  if (reader.size === 0) throw unreadable('the file is empty');
  const b = await reader.bytes(0, 4096);
  const head = String.fromCharCode(...b);
  const container = sniffContainer(b, head);
  if (container) return container;
  const named = SIGNATURES.find(([pattern]) => pattern.test(head));
  if (named) return { other: named[1] };
  return sniffMpegStream(b) ?? (await sniffBehindId3(reader)) ?? sniffLateMp3(b) ?? sniffOther(b, head);
}

/** The accepted containers and images, and the other RIFF and ISOBMFF files (named by their type or brands). */
function sniffContainer(b: Uint8Array, head: string): Sniffed | undefined {
  if (head.startsWith('RIFF')) {
    const type = fourcc(b, 8);
    return type === 'WAVE' ? { format: 'wav' } : { other: RIFF_TYPES[type] ?? `a RIFF file of type "${type.trim()}"` };
  }
  if (head.startsWith('ftyp', 4)) {
    const brands = [fourcc(b, 8)];
    const boxEnd = Math.min(b.length, u32be(b, 0));
    for (let at = 16; at + 4 <= boxEnd; at += 4) brands.push(fourcc(b, at));
    const image = brands.map(imageBrand).find(Boolean);
    // A movie may list an image brand among others (rare); only a leading image brand makes it an image.
    if (image && (imageBrand(brands[0]) || !brands.some((brand) => /^(iso|mp4|avc1|qt {2}|M4V)/.test(brand)))) return { other: image };
    return { format: brands[0] === 'qt  ' ? 'mov' : 'mp4' };
  }
  if (u32be(b, 0) >= 8 && CLASSIC_QUICKTIME_BOXES.has(fourcc(b, 4))) return { format: 'mov' };
  if (head.startsWith('\x89PNG\r\n\x1a\n')) return { format: 'png' };
  if (head.startsWith('\xff\xd8\xff')) return { format: 'jpeg' };
  return undefined;
}

/** Raw MPEG audio or AAC frames: MP3 is accepted, its siblings are named. */
function sniffMpegStream(b: Uint8Array): Sniffed | undefined {
  if (isAdtsHeader(b)) return { other: 'AAC audio (ADTS)' };
  const header = parseMpegHeader(b);
  if (!header) return undefined;
  if (header.layer === 3) return { format: 'mp3' };
  return { other: `MPEG-${header.version} Layer ${header.layer === 2 ? 'II (MP2)' : 'I (MP1)'} audio` };
}

/**
 * An ID3v2 tag may front any stream (MP3 usually, but also FLAC or raw AAC): judge what follows it.
 * Whatever is not FLAC or AAC is left to the MP3 parser, which finds the first frame or reports none.
 */
async function sniffBehindId3(reader: ByteReader): Promise<Sniffed | undefined> {
  const at = await skipId3v2(reader);
  if (at === 0) return undefined;
  const after = await reader.bytes(at, 16);
  if (fourcc(after, 0) === 'fLaC') return { other: 'FLAC audio' };
  return sniffMpegStream(after) ?? { format: 'mp3' };
}

/**
 * MP3 frames that start after some junk (zeros, a broken tag): two consecutive Layer III frame headers of the same
 * stream. Random data almost never lines up that way, and text never contains the 0xFF sync byte.
 */
function sniffLateMp3(b: Uint8Array): Sniffed | undefined {
  for (let i = b.indexOf(0xff); i >= 0; i = b.indexOf(0xff, i + 1)) {
    const first = parseMpegHeader(b, i);
    if (first?.layer !== 3) continue;
    const second = parseMpegHeader(b, i + first.frameLength);
    if (second && sameStream(first, second)) return { format: 'mp3' };
  }
  return undefined;
}

/** What is left once no audio was found: documents, text, or bytes of no known format. */
function sniffOther(b: Uint8Array, head: string): Sniffed {
  if (head.startsWith('%PDF')) return { other: 'a PDF document' };
  if (head.startsWith('PK\x03\x04')) return { other: 'a ZIP archive' };
  const text = new TextDecoder().decode(b.subarray(0, 512));
  if (/^\s*<(\?xml|svg)/i.test(text)) return { other: 'an XML or SVG document' };
  // Text: valid UTF-8 without control characters (the cut at byte 512 may split the last character).
  if (!/[\x00-\x08\x0e-\x1f\ufffd]/.test(text.replace(/\ufffd$/, ''))) return { other: 'a text file' };
  const hex = [...b.subarray(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join(' ');
  return { other: `of an unrecognised format (it starts with bytes ${hex})` };
}
