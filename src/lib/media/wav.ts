import { unreadable } from './failure.js';
import { type ByteReader, fourcc, u16le, u32le } from './reader.js';
import type { MediaInfo } from './types.js';

/*
 * WAV duration from its chunks, by hand: mediabunny refuses compressed WAVE codecs (IMA ADPCM, GSM...), whose
 * length only the `fact` chunk or the codec's block layout gives, and the rules for streamed files and truncation
 * below are ours to choose. Only chunk headers are read: a few KB whatever the file size.
 */

const PCM_LIKE = new Set([0x0001, 0x0003, 0x0006, 0x0007]); // integer PCM, float, A-law, mu-law: one block per frame
/** The ADPCM codecs (IMA, Microsoft) that tell their length from the block layout: each block's header per channel. */
const ADPCM = new Map([
  [0x0011, { headerBytes: 4, headerSamples: 1 }],
  [0x0002, { headerBytes: 7, headerSamples: 2 }],
]);
const EXTENSIBLE = 0xfffe;
const MAX_CHUNKS = 10_000;

export interface Fmt {
  tag: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  /** Samples per channel in one block of an ADPCM codec (0 when absent). */
  samplesPerBlock: number;
}

/** Where a WAV file's audio lies and how it is coded: what splitting it needs besides its duration. */
export interface WavLayout {
  fmt: Fmt;
  /** The whole fmt chunk, header included. */
  fmtChunk: { start: number; length: number };
  /** Offset of the first audio byte. */
  dataStart: number;
  /** Samples per channel. */
  frames: number;
}

export async function probeWav(reader: ByteReader): Promise<MediaInfo> {
  const { fmt, frames } = await readWavLayout(reader);
  return { kind: 'audio', format: 'wav', durationSeconds: frames / fmt.sampleRate };
}

export async function readWavLayout(reader: ByteReader): Promise<WavLayout> {
  const riffSize = u32le(await reader.bytes(0, 12), 4);
  let fmt: Fmt | undefined;
  let fmtChunk = { start: 0, length: 0 };
  let factSamples: number | undefined;
  let data: { start: number; declared: number } | undefined;
  let at = 12;
  for (let count = 0; at + 8 <= reader.size && count < MAX_CHUNKS; count += 1) {
    const header = await reader.bytes(at, 8);
    const id = fourcc(header, 0);
    const length = u32le(header, 4);
    if (id === 'fmt ') {
      fmt = parseFmt(await reader.bytes(at + 8, Math.min(length, 64)));
      fmtChunk = { start: at, length: 8 + length };
    } else if (id === 'fact' && length >= 4) factSamples = u32le(await reader.bytes(at + 8, 4), 0);
    else if (id === 'data') {
      data = { start: at + 8, declared: length };
      // Past the audio there is nothing we need, unless fmt (or a compressed codec's fact) comes late, which is legal.
      if (fmt && (factSamples !== undefined || PCM_LIKE.has(fmt.tag))) break;
      if (isPlaceholder(length)) break; // a streamed file: the data runs to the end, no chunk follows
    }
    at += 8 + length + (length % 2); // odd-sized chunks are followed by a pad byte (ffmpeg and sox insist on it too)
  }
  if (!fmt) throw unreadable(at + 8 > reader.size ? 'the file ends before the fmt chunk (truncated)' : 'it has no fmt chunk');
  if (!data) throw unreadable('it has no data chunk (truncated, or not audio)');
  const dataBytes = measureData(reader.size, riffSize, data, fmt);
  return { fmt, fmtChunk, dataStart: data.start, frames: frames(fmt, dataBytes, factSamples) };
}

/** Size fields a writer leaves when it cannot seek back to fill them in (pipes, live capture). */
const isPlaceholder = (size: number) => size === 0 || size === 0xffffffff;

function parseFmt(b: Uint8Array): Fmt {
  if (b.length < 16) throw unreadable('its fmt chunk is too short');
  let tag = u16le(b, 0);
  // WAVE_FORMAT_EXTENSIBLE carries the real codec in the first two bytes of its sub-format GUID.
  if (tag === EXTENSIBLE && b.length >= 26) tag = u16le(b, 24);
  const fmt = {
    tag,
    channels: u16le(b, 2),
    sampleRate: u32le(b, 4),
    blockAlign: u16le(b, 12),
    samplesPerBlock: b.length >= 20 ? u16le(b, 18) : 0,
  };
  if (fmt.channels === 0 || fmt.sampleRate === 0 || fmt.blockAlign === 0) {
    throw unreadable(`its fmt chunk is invalid (${fmt.channels} channels, ${fmt.sampleRate} Hz, block size ${fmt.blockAlign})`);
  }
  return fmt;
}

/** Bytes of audio actually present. A data chunk claiming more than the file holds is a truncated file. */
function measureData(fileSize: number, riffSize: number, data: { start: number; declared: number }, fmt: Fmt): number {
  const available = fileSize - data.start;
  const streamed = isPlaceholder(data.declared) || (isPlaceholder(riffSize) && data.declared > available);
  if (streamed) return available;
  // Less than one block short is a writer rounding its sizes, not a lost tail.
  if (data.declared > available + fmt.blockAlign) {
    throw unreadable(
      `its data chunk declares ${data.declared.toLocaleString('en-US')} bytes but only ${available.toLocaleString('en-US')} follow (truncated)`,
    );
  }
  return Math.min(data.declared, available);
}

/** Samples per channel in `dataBytes` of audio. */
function frames(fmt: Fmt, dataBytes: number, factSamples: number | undefined): number {
  if (PCM_LIKE.has(fmt.tag)) return Math.floor(dataBytes / fmt.blockAlign);
  if (factSamples !== undefined && factSamples !== 0xffffffff) return factSamples;
  const adpcm = ADPCM.get(fmt.tag);
  if (adpcm && fmt.samplesPerBlock > 0) {
    // A cut last block holds its header's samples, then two 4-bit samples per byte, shared by the channels.
    const rest = dataBytes % fmt.blockAlign;
    const header = adpcm.headerBytes * fmt.channels;
    const partial = rest >= header ? adpcm.headerSamples + Math.floor((rest - header) * (2 / fmt.channels)) : 0;
    return Math.floor(dataBytes / fmt.blockAlign) * fmt.samplesPerBlock + partial;
  }
  throw unreadable(`it is compressed (WAVE format 0x${fmt.tag.toString(16).padStart(4, '0')}) and has no fact chunk giving its length`);
}
