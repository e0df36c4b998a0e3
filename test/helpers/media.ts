import { readFileSync } from 'node:fs';

/** 16-bit mono PCM WAV of silence, `seconds` long. */
export function wav(seconds: number, rate = 8000): Uint8Array {
  const dataSize = Math.round(seconds * rate) * 2;
  const bytes = new Uint8Array(44 + dataSize);
  const view = new DataView(bytes.buffer);
  const text = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i));
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + dataSize, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, 'data');
  view.setUint32(40, dataSize, true);
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
