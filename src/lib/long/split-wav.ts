import type { LocalSource } from '../../internal/byte-source.js';
import { ByteReader } from '../media/reader.js';
import { readWavLayout, type WavLayout } from '../media/wav.js';
import { frameEnergies, sampleReader } from './pcm-energy.js';
import { quietFrames } from './quiet-points.js';
import type { SegmentPart } from './segment-file.js';
import { planSegments, type SplitSettings, unsupportedAudio } from './split-plan.js';

/** Energy is measured over 20 ms frames (shorter than a syllable, longer than a pitch period)... */
const ENERGY_FRAME_SECONDS = 0.02;
/** ...averaged over 100 ms, so that a pause between words beats a dip inside one. */
const SMOOTHING_SECONDS = 0.1;
/** Audio bytes read at once while measuring energy. */
const READ_BYTES = 1024 * 1024;

/**
 * Plan the cuts of a PCM-like WAV, sample-exactly, reading only the search windows. Each segment gets the source's
 * own fmt chunk (extensible format, channel mask and all), a fact chunk for the non-integer codings that the RIFF
 * rules want it for, and its slice of the data chunk. Other chunks (LIST/INFO, cue points) are not carried over.
 */
export async function planWavSplit(source: LocalSource, settings: SplitSettings) {
  const layout = await readWavLayout(new ByteReader(source));
  const { fmt } = layout;
  const read = sampleReader(fmt);
  if (!read) {
    throw unsupportedAudio(
      source.name,
      `is a WAV coded as format 0x${fmt.tag.toString(16).padStart(4, '0')}, ${fmt.blockAlign / fmt.channels} bytes per sample`,
      'only PCM WAV (8 to 32-bit integer, 32/64-bit float, A-law, mu-law) can be cut sample-exactly; convert it to 16-bit PCM WAV or MP3',
    );
  }
  const frameSamples = Math.max(1, Math.round(fmt.sampleRate * ENERGY_FRAME_SECONDS));
  const smoothing = Math.max(1, Math.round(SMOOTHING_SECONDS / ENERGY_FRAME_SECONDS));
  const chunkSamples = Math.max(frameSamples, Math.floor(READ_BYTES / fmt.blockAlign / frameSamples) * frameSamples);
  const quietest = async (from: number, to: number) => {
    const energies: number[] = [];
    for (let at = from; at < to; at += chunkSamples) {
      const samples = Math.min(chunkSamples, to - at);
      const bytes = await source.read(layout.dataStart + at * fmt.blockAlign, samples * fmt.blockAlign);
      energies.push(...frameEnergies(bytes, fmt, read, frameSamples));
    }
    // A frame's pause is at its middle sample: the cut stays 10 ms from any sound the frame holds.
    const middle = (frame: number) => from + frame * frameSamples + Math.floor(frameSamples / 2);
    return quietFrames(energies, smoothing).map((span) => ({ from: middle(span.from), to: middle(span.to) }));
  };
  return planSegments(settings, layout.frames, fmt.sampleRate, quietest, (start, end) => segmentParts(layout, start, end));
}

/** A RIFF chunk header: its id and little-endian size, then any 32-bit fields of its body. */
function chunkHeader(id: string, size: number, ...fields: number[]): Uint8Array {
  const bytes = new Uint8Array(8 + 4 * fields.length);
  const view = new DataView(bytes.buffer);
  bytes.set(Buffer.from(id, 'latin1'));
  for (const [i, value] of [size, ...fields].entries()) view.setUint32(4 + 4 * i, value, true);
  return bytes;
}

function segmentParts(layout: WavLayout, startFrame: number, endFrame: number): SegmentPart[] {
  const { fmt, fmtChunk } = layout;
  const dataBytes = (endFrame - startFrame) * fmt.blockAlign;
  const fmtPad = fmtChunk.length % 2;
  const fact = fmt.tag === 0x0001 ? [] : [chunkHeader('fact', 4, endFrame - startFrame)];
  const riffBytes = 4 + fmtChunk.length + fmtPad + 12 * fact.length + 8 + dataBytes + (dataBytes % 2);
  return [
    Buffer.concat([chunkHeader('RIFF', riffBytes), Buffer.from('WAVE', 'latin1')]),
    { start: fmtChunk.start, length: fmtChunk.length },
    new Uint8Array(fmtPad),
    ...fact,
    chunkHeader('data', dataBytes),
    { start: layout.dataStart + startFrame * fmt.blockAlign, length: dataBytes },
    new Uint8Array(dataBytes % 2),
  ];
}
