import { unreadable } from './failure.js';
import { id3v2Size } from './id3.js';
import { isAdtsHeader, parseMpegHeader } from './mpeg-header.js';
import { type ByteReader, fourcc, u32be } from './reader.js';
import type { MediaFormat } from './types.js';

/** What the first bytes say a file is: one of the accepted formats, or a description of something else. */
export type Sniffed = { format: MediaFormat } | { other: string };

const ascii = (b: Uint8Array, at: number, text: string) => text.split('').every((c, i) => b[at + i] === c.charCodeAt(0));

/** ISOBMFF brands that mean a still image rather than a movie. */
const IMAGE_BRANDS: Record<string, string> = {
  heic: 'a HEIC image',
  heix: 'a HEIC image',
  heim: 'a HEIC image',
  heis: 'a HEIC image',
  hevc: 'a HEIC image',
  mif1: 'a HEIF image',
  msf1: 'a HEIF image',
  avif: 'an AVIF image',
  avis: 'an AVIF image',
  'crx ': 'a Canon CR3 raw image',
};

/** Top-level box types a brand-less (pre-`ftyp`) QuickTime movie may start with. */
const CLASSIC_QUICKTIME_BOXES = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** Look at the bytes (never the name) and say what the file is. Reads the first 4 KB, plus past an ID3v2 tag. */
export async function sniff(reader: ByteReader): Promise<Sniffed> {
  if (reader.size === 0) throw unreadable('the file is empty');
  const b = await reader.bytes(0, 4096);
  return sniffContainer(b) ?? sniffAudio(b) ?? sniffImage(b) ?? (await sniffBehindId3(reader, b)) ?? sniffLateMp3(b) ?? sniffOther(b);
}

function sniffContainer(b: Uint8Array): Sniffed | undefined {
  if (ascii(b, 0, 'RIFF')) {
    const type = fourcc(b, 8);
    if (type === 'WAVE') return { format: 'wav' };
    if (type === 'AVI ') return { other: 'an AVI video' };
    if (type === 'WEBP') return { other: 'a WebP image' };
    return { other: `a RIFF file of type "${type.trim()}"` };
  }
  if (ascii(b, 0, 'RF64') || ascii(b, 0, 'BW64')) return { other: 'RF64 (64-bit WAV) audio' };
  if (ascii(b, 0, 'RIFX')) return { other: 'big-endian (RIFX) WAV audio' };
  if (ascii(b, 4, 'ftyp')) {
    const brands = [fourcc(b, 8)];
    const boxEnd = Math.min(b.length, u32be(b, 0));
    for (let at = 16; at + 4 <= boxEnd; at += 4) brands.push(fourcc(b, at));
    const image = brands.map((brand) => IMAGE_BRANDS[brand]).find(Boolean);
    // A movie may list an image brand among others (rare); only a leading image brand makes it an image.
    if (image && (IMAGE_BRANDS[brands[0] ?? ''] || !brands.some((brand) => /^(iso|mp4|avc1|qt {2}|M4V)/.test(brand))))
      return { other: image };
    return { format: brands[0] === 'qt  ' ? 'mov' : 'mp4' };
  }
  if (u32be(b, 0) >= 8 && CLASSIC_QUICKTIME_BOXES.has(fourcc(b, 4))) return { format: 'mov' };
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    const head = String.fromCharCode(...b.subarray(0, 64));
    return { other: head.includes('webm') ? 'a WebM file' : 'a Matroska (MKV) file' };
  }
  if (ascii(b, 0, 'OggS')) {
    if (ascii(b, 28, '\x01vorbis')) return { other: 'Vorbis audio in an Ogg container' };
    if (ascii(b, 28, 'OpusHead')) return { other: 'Opus audio in an Ogg container' };
    if (ascii(b, 28, '\x7fFLAC')) return { other: 'FLAC audio in an Ogg container' };
    if (ascii(b, 28, 'Speex')) return { other: 'Speex audio in an Ogg container' };
    if (ascii(b, 28, '\x80theora')) return { other: 'Theora video in an Ogg container' };
    return { other: 'an Ogg file' };
  }
  if (ascii(b, 0, '0&\xb2u\x8ef\xcf\x11')) return { other: 'a Windows Media (ASF) file' };
  if (ascii(b, 0, 'FLV\x01')) return { other: 'a Flash (FLV) video' };
  if (b[0] === 0x47 && b[188] === 0x47 && b[376] === 0x47) return { other: 'an MPEG transport stream' };
  if (ascii(b, 0, '\x00\x00\x01\xba')) return { other: 'an MPEG program stream' };
  return undefined;
}

function sniffAudio(b: Uint8Array): Sniffed | undefined {
  if (ascii(b, 0, 'fLaC')) return { other: 'FLAC audio' };
  if (ascii(b, 0, 'FORM') && (ascii(b, 8, 'AIFF') || ascii(b, 8, 'AIFC'))) return { other: 'AIFF audio' };
  if (ascii(b, 0, 'caff')) return { other: 'Core Audio (CAF) audio' };
  if (ascii(b, 0, '#!AMR')) return { other: 'AMR audio' };
  if (ascii(b, 0, '.snd')) return { other: 'Sun AU audio' };
  if (ascii(b, 0, 'wvpk')) return { other: 'WavPack audio' };
  if (ascii(b, 0, 'MAC ')) return { other: "Monkey's Audio (APE)" };
  if (ascii(b, 0, 'MThd')) return { other: 'a MIDI file' };
  return sniffMpegStream(b, 0);
}

/** Raw MPEG audio or AAC frames at `at`: MP3 is accepted, its siblings are named. */
function sniffMpegStream(b: Uint8Array, at: number): Sniffed | undefined {
  if (isAdtsHeader(b, at)) return { other: 'AAC audio (ADTS)' };
  const header = parseMpegHeader(b, at);
  if (!header) return undefined;
  if (header.layer === 3) return { format: 'mp3' };
  return { other: `MPEG-${header.version} Layer ${header.layer === 2 ? 'II (MP2)' : 'I (MP1)'} audio` };
}

function sniffImage(b: Uint8Array): Sniffed | undefined {
  if (ascii(b, 0, '\x89PNG\r\n\x1a\n')) return { format: 'png' };
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { format: 'jpeg' };
  if (ascii(b, 0, 'GIF8')) return { other: 'a GIF image' };
  if (ascii(b, 0, 'BM') && b[6] === 0 && b[7] === 0 && b[8] === 0 && b[9] === 0) return { other: 'a BMP image' };
  if (ascii(b, 0, 'II*\x00') || ascii(b, 0, 'MM\x00*')) return { other: 'a TIFF image' };
  if (ascii(b, 0, '8BPS')) return { other: 'a Photoshop (PSD) image' };
  if (ascii(b, 0, '\x00\x00\x00\x0cjP  ')) return { other: 'a JPEG 2000 image' };
  if (ascii(b, 0, '\xff\x0a') || ascii(b, 0, '\x00\x00\x00\x0cJXL ')) return { other: 'a JPEG XL image' };
  if (ascii(b, 0, '\x00\x00\x01\x00') && b.length > 6 && b[4] !== 0) return { other: 'an ICO image' };
  return undefined;
}

/**
 * An ID3v2 tag may front any stream (MP3 usually, but also FLAC or raw AAC): judge what follows it.
 * Whatever is not FLAC or AAC is left to the MP3 parser, which finds the first frame or reports none.
 */
async function sniffBehindId3(reader: ByteReader, b: Uint8Array): Promise<Sniffed | undefined> {
  let at = 0;
  for (let size = id3v2Size(b); size > 0 && at < reader.size; ) {
    at += size;
    size = id3v2Size(await reader.bytes(at, 10));
  }
  if (at === 0) return undefined;
  const after = await reader.bytes(at, 16);
  if (ascii(after, 0, 'fLaC')) return { other: 'FLAC audio' };
  return sniffMpegStream(after, 0) ?? { format: 'mp3' };
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
    if (second && second.layer === 3 && second.version === first.version && second.sampleRate === first.sampleRate)
      return { format: 'mp3' };
  }
  return undefined;
}

function sniffOther(b: Uint8Array): Sniffed {
  if (ascii(b, 0, '%PDF')) return { other: 'a PDF document' };
  if (ascii(b, 0, 'PK\x03\x04')) return { other: 'a ZIP archive' };
  const head = b.subarray(0, 512);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  if (/^\s*<(\?xml|svg)/i.test(text)) return { other: 'an XML or SVG document' };
  // Text: valid UTF-8 without control characters (the cut at byte 512 may split the last character).
  if (!/[\x00-\x08\x0e-\x1f\ufffd]/.test(text.replace(/\ufffd$/, ''))) return { other: 'a text file' };
  const hex = [...b.subarray(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join(' ');
  return { other: `of an unrecognised format (it starts with bytes ${hex})` };
}
