import { readFileSync } from 'node:fs';
import { wavHeader } from './speech.js';

/** 16-bit mono PCM WAV of silence, `seconds` long. */
export function wav(seconds: number, rate = 8000): Uint8Array {
  const frames = Math.round(seconds * rate);
  const bytes = new Uint8Array(44 + frames * 2);
  bytes.set(wavHeader(frames, rate));
  return bytes;
}

export const mockFixture = (name: string) => new URL(`../fixtures/mock/${name}`, import.meta.url);
export const readMockFixture = (name: string) => new Uint8Array(readFileSync(mockFixture(name)));

/** Speech-like 16-bit mono WAV: 1.7 s tone bursts separated by 0.3 s of silence. */
export function speechLikeWav(seconds: number, rate = 8000): Uint8Array {
  const bytes = wav(seconds, rate);
  const view = new DataView(bytes.buffer);
  const samples = (bytes.length - 44) / 2;
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    if (t % 2 < 1.7) view.setInt16(44 + i * 2, Math.round(8000 * Math.sin(2 * Math.PI * 220 * t)), true);
  }
  return bytes;
}
