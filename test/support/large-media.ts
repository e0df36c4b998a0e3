import { open, readFile, writeFile } from 'node:fs/promises';

/*
 * Large probe inputs built at run time (bench and tests) from the committed fixtures. Long stretches of media data
 * that a probe must never read are left as holes in a sparse file: the file has its full size and reads as zeros,
 * but costs no time or disk to write.
 */

/** Write `parts` at their offsets into a file of `size` bytes; the gaps stay unwritten (zeros). */
async function writeSparse(path: string, size: number, parts: Array<{ at: number; bytes: Uint8Array }>): Promise<void> {
  const file = await open(path, 'w');
  try {
    await file.truncate(size);
    for (const { at, bytes } of parts) await file.write(bytes, 0, bytes.length, at);
  } finally {
    await file.close();
  }
}

const u32be = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint32(at);

/**
 * Grow the `mdat` of an MP4 whose `moov` comes after it by `padBytes` of zeros at its end. Sample offsets point
 * into the start of mdat and stay valid; the file is as valid as the original, with its moov `padBytes` further on.
 */
export async function writePaddedMp4(smallMp4: string, out: string, padBytes: number): Promise<number> {
  const small = new Uint8Array(await readFile(smallMp4));
  let at = 0;
  while (at + 8 <= small.length) {
    const size = u32be(small, at);
    const type = String.fromCharCode(...small.subarray(at + 4, at + 8));
    if (type === 'mdat') {
      if (size < 8) throw new Error('mdat must have a 32-bit size for padding');
      const head = small.slice(0, at + size);
      new DataView(head.buffer).setUint32(at, size + padBytes);
      const tail = small.subarray(at + size);
      const total = small.length + padBytes;
      await writeSparse(out, total, [
        { at: 0, bytes: head },
        { at: head.length + padBytes, bytes: tail },
      ]);
      return total;
    }
    at += size;
  }
  throw new Error(`${smallMp4} has no mdat`);
}

/** A 16-bit PCM WAV header followed by `seconds` of silence (a hole). */
export async function writeLongWav(out: string, seconds: number, sampleRate = 48_000, channels = 2): Promise<number> {
  const dataBytes = seconds * sampleRate * channels * 2;
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  header.set(new TextEncoder().encode('RIFF----WAVEfmt '), 0);
  view.setUint32(4, 36 + dataBytes, true);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  header.set(new TextEncoder().encode('data'), 36);
  view.setUint32(40, dataBytes, true);
  await writeSparse(out, 44 + dataBytes, [{ at: 0, bytes: header }]);
  return 44 + dataBytes;
}

/** A header-less MP3 stream repeated `times` times (MP3 frames concatenate). */
export async function writeRepeatedMp3(smallMp3: string, out: string, times: number): Promise<number> {
  const small = await readFile(smallMp3);
  await writeFile(out, Buffer.concat(Array.from({ length: times }, () => small)));
  return small.length * times;
}

/**
 * `frames` silent MPEG-1 Layer III frames (44.1 kHz stereo) with pseudo-random bitrates from 128 to 320 kbps and no
 * Xing header: the worst case for a probe, which must visit every frame header to measure it.
 */
export async function writeHighBitrateVbrMp3(out: string, frames: number, seed = 1): Promise<number> {
  const KBPS = [128, 160, 192, 224, 256, 320];
  const INDEX = [9, 10, 11, 12, 13, 14];
  let state = seed;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < frames; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const pick = state % KBPS.length;
    const frame = new Uint8Array(Math.floor((144 * (KBPS[pick] ?? 128) * 1000) / 44_100));
    frame.set([0xff, 0xfb, ((INDEX[pick] ?? 9) << 4) | 0, 0x00]); // MPEG-1 Layer III, no CRC, 44.1 kHz, stereo
    chunks.push(frame);
  }
  const bytes = Buffer.concat(chunks);
  await writeFile(out, bytes);
  return bytes.length;
}
