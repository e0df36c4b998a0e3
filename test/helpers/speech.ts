import { open } from 'node:fs/promises';
import { seededRandom } from '../../src/testing/seeded-random.js';

/*
 * Speech-like test audio, deterministic from a seed: "phrases" of 1.5 to 7 s (two tones under a 4-5 Hz syllable
 * envelope that dips to a third but never to silence, plus a little noise) separated by pauses of 0.3 to 0.9 s
 * (noise alone, 60 dB down). Every 10 s window holds a pause, and the audio ends in one. `pauses: false` gives one
 * endless phrase: no pause anywhere.
 */

export interface SpeechOptions {
  /** @default 8000 */
  sampleRate?: number;
  /** @default 1 */
  seed?: number;
  /** @default true */
  pauses?: boolean;
}

export interface SpeechLayout {
  sampleRate: number;
  frames: number;
  /** Pauses as [first sample, end sample) pairs. */
  pauses: Array<[number, number]>;
}

/** Seedable randomness for test signals (the mock's own PRNG). */
export const random = seededRandom;

export function speechLayout(seconds: number, options: SpeechOptions = {}): SpeechLayout {
  const sampleRate = options.sampleRate ?? 8000;
  const frames = Math.round(seconds * sampleRate);
  const pauses: Array<[number, number]> = [];
  if (options.pauses === false) return { sampleRate, frames, pauses };
  const next = random(options.seed ?? 1);
  const lastPause = Math.round(0.6 * sampleRate);
  for (let at = 0; ; ) {
    at += Math.round((1.5 + 5.5 * next()) * sampleRate);
    const length = Math.round((0.3 + 0.6 * next()) * sampleRate);
    if (at + length >= frames - lastPause - 1.5 * sampleRate) break;
    pauses.push([at, at + length]);
    at += length;
  }
  pauses.push([frames - lastPause, frames]);
  return { sampleRate, frames, pauses };
}

/** 16-bit mono samples `[from, to)` of the layout's signal. */
export function speechSamples(layout: SpeechLayout, from: number, to: number, seed = 1): Int16Array {
  const noise = random(seed * 7919 + from);
  const out = new Int16Array(to - from);
  let pause = layout.pauses.findIndex(([, end]) => end > from);
  const rate = layout.sampleRate;
  for (let i = from; i < to; i += 1) {
    while (pause >= 0 && pause < layout.pauses.length && (layout.pauses[pause] as [number, number])[1] <= i) pause += 1;
    const current = layout.pauses[pause];
    const silent = current !== undefined && current[0] <= i && i < current[1];
    const t = i / rate;
    const envelope = 0.35 + 0.65 * Math.abs(Math.sin(Math.PI * (4.5 + 0.5 * Math.sin(t / 3)) * t));
    const voice = silent ? 0 : envelope * (0.5 * Math.sin(2 * Math.PI * 180 * t) + 0.3 * Math.sin(2 * Math.PI * 410 * t));
    out[i - from] = Math.round(32767 * (0.8 * voice + 0.001 * (noise() * 2 - 1)));
  }
  return out;
}

/** A 16-bit mono PCM WAV header for `frames` samples. */
export function wavHeader(frames: number, sampleRate: number): Uint8Array {
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  header.set(new TextEncoder().encode('RIFF----WAVEfmt '), 0);
  view.setUint32(4, 36 + frames * 2, true);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  header.set(new TextEncoder().encode('data'), 36);
  view.setUint32(40, frames * 2, true);
  return header;
}

/** Write the speech-like WAV to `path` one second at a time (a 30-minute file never sits in memory). */
export async function writeSpeechWav(path: string, seconds: number, options: SpeechOptions = {}): Promise<SpeechLayout> {
  const layout = speechLayout(seconds, options);
  const file = await open(path, 'w');
  try {
    await file.write(wavHeader(layout.frames, layout.sampleRate));
    for (let at = 0; at < layout.frames; at += layout.sampleRate) {
      const samples = speechSamples(layout, at, Math.min(layout.frames, at + layout.sampleRate), options.seed ?? 1);
      await file.write(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
    }
  } finally {
    await file.close();
  }
  return layout;
}
