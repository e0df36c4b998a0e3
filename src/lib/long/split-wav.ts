import type { LocalSource } from '../../internal/source.js';
import { ByteReader } from '../media/reader.js';
import { readWavLayout, type WavLayout } from '../media/wav.js';
import { frameEnergies, sampleReader } from './pcm-energy.js';
import { planCuts, quietestFrame } from './quiet-points.js';
import type { SegmentPart } from './segment-file.js';
import { type SplitPlan, type SplitSettings, unsupportedAudio } from './split-plan.js';

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
export async function planWavSplit(source: LocalSource, settings: SplitSettings): Promise<SplitPlan> {
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
  const rate = fmt.sampleRate;
  const frameSamples = Math.max(1, Math.round(rate * ENERGY_FRAME_SECONDS));
  const smoothing = Math.max(1, Math.round(SMOOTHING_SECONDS / ENERGY_FRAME_SECONDS));
  const cuts = await planCuts(layout.frames, settings.limitsIn(rate), async (from, to) => {
    settings.checkAbort();
    const energies: number[] = [];
    const chunkSamples = Math.max(frameSamples, Math.floor(READ_BYTES / fmt.blockAlign / frameSamples) * frameSamples);
    for (let at = from; at < to; at += chunkSamples) {
      const samples = Math.min(chunkSamples, to - at);
      const bytes = await source.read(layout.dataStart + at * fmt.blockAlign, samples * fmt.blockAlign);
      energies.push(...frameEnergies(bytes, fmt, read, frameSamples));
    }
    return from + quietestFrame(energies, smoothing) * frameSamples + Math.floor(frameSamples / 2);
  });
  const bounds = [0, ...cuts, layout.frames];
  return {
    format: 'wav',
    segments: bounds.slice(1).map((end, i) => {
      const start = bounds[i] as number;
      return { startSeconds: start / rate, durationSeconds: (end - start) / rate, parts: segmentParts(layout, start, end) };
    }),
  };
}

function segmentParts(layout: WavLayout, startFrame: number, endFrame: number): SegmentPart[] {
  const { fmt, fmtChunk } = layout;
  const dataBytes = (endFrame - startFrame) * fmt.blockAlign;
  const fmtPadded = fmtChunk.length + (fmtChunk.length % 2);
  const fact = fmt.tag === 0x0001 ? 0 : 12;
  const pad = dataBytes % 2;
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  head.set([0x52, 0x49, 0x46, 0x46], 0); // RIFF
  view.setUint32(4, 4 + fmtPadded + fact + 8 + dataBytes + pad, true);
  head.set([0x57, 0x41, 0x56, 0x45], 8); // WAVE
  const factChunk = new Uint8Array(fact);
  if (fact) {
    factChunk.set([0x66, 0x61, 0x63, 0x74], 0); // fact
    new DataView(factChunk.buffer).setUint32(4, 4, true);
    new DataView(factChunk.buffer).setUint32(8, endFrame - startFrame, true);
  }
  const dataHeader = new Uint8Array(8);
  dataHeader.set([0x64, 0x61, 0x74, 0x61], 0); // data
  new DataView(dataHeader.buffer).setUint32(4, dataBytes, true);
  return [
    head,
    { start: fmtChunk.start, length: fmtChunk.length },
    new Uint8Array(fmtPadded - fmtChunk.length),
    factChunk,
    dataHeader,
    { start: layout.dataStart + startFrame * fmt.blockAlign, length: dataBytes },
    new Uint8Array(pad),
  ];
}
