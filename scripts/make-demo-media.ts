/**
 * Makes the demo inputs under examples/media: a drawn portrait (no real person) as PNG and a spoken
 * WAV from espeak-ng. Run: npx tsx scripts/make-demo-media.ts (needs espeak-ng: apt-get install espeak-ng).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const out = new URL('../examples/media/', import.meta.url);
mkdirSync(out, { recursive: true });

// A 720x1280 portrait: background, shoulders, a face with eyes and an open mouth (the spec's advice).
const width = 720;
const height = 1280;
const pixels = Buffer.alloc(width * height * 3);
const paint = (inside: (x: number, y: number) => boolean, rgb: [number, number, number]) => {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (inside(x, y)) pixels.set(rgb, (y * width + x) * 3);
    }
  }
};
const ellipse = (cx: number, cy: number, rx: number, ry: number) => (x: number, y: number) => ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
paint(() => true, [70, 110, 160]);
paint(ellipse(360, 1250, 330, 330), [40, 60, 90]);
paint(ellipse(360, 880, 70, 120), [225, 180, 150]);
paint(ellipse(360, 560, 210, 270), [235, 190, 160]);
paint(ellipse(360, 330, 220, 110), [60, 40, 30]);
paint(ellipse(285, 530, 32, 20), [255, 255, 255]);
paint(ellipse(435, 530, 32, 20), [255, 255, 255]);
paint(ellipse(285, 532, 14, 14), [50, 80, 60]);
paint(ellipse(435, 532, 14, 14), [50, 80, 60]);
paint(ellipse(360, 720, 60, 30), [120, 30, 40]);

function png(rgb: Buffer, w: number, h: number): Buffer {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) rgb.copy(raw, y * (w * 3 + 1) + 1, y * w * 3, (y + 1) * w * 3);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

writeFileSync(new URL('portrait.png', out), png(pixels, width, height));
execFileSync('espeak-ng', [
  '-s', '150', '-w', new URL('speech.wav', out).pathname,
  'Hello! This video was made with the avatar video SDK, against its built-in mock server. No account needed.',
]);
console.log('wrote examples/media/portrait.png and examples/media/speech.wav');
