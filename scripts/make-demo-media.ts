/**
 * Makes the demo inputs under examples/media: a drawn portrait (no real person) as PNG, a spoken WAV from
 * espeak-ng, a 12 s video of the portrait (a video reference) and 90 s of speech as MP3 (for long videos).
 * Run: npx tsx scripts/make-demo-media.ts (needs espeak-ng and ffmpeg: apt-get install espeak-ng ffmpeg).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
const ellipse = (cx: number, cy: number, rx: number, ry: number) => (x: number, y: number) =>
  ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
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
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
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
  '-s',
  '150',
  '-w',
  new URL('speech.wav', out).pathname,
  'Hello! This video was made with the avatar video SDK, against its built-in mock server. No account needed.',
]);

// A 12 s video reference (the spec wants 10 to 60 s) of the same drawn portrait, silent: a still frame
// compresses to a few KB.
execFileSync('ffmpeg', [
  '-y',
  '-loglevel',
  'error',
  '-loop',
  '1',
  '-i',
  new URL('portrait.png', out).pathname,
  '-t',
  '12',
  '-r',
  '25',
  '-c:v',
  'libx264',
  '-preset',
  'veryslow',
  '-crf',
  '30',
  '-pix_fmt',
  'yuv420p',
  '-an',
  '-movflags',
  '+faststart',
  new URL('presenter.mp4', out).pathname,
]);

// About 90 s of speech, longer than one job takes, for the long-video example; MP3 keeps it small.
const talk = [
  'Welcome to the long video example.',
  'A single job of the avatar video service takes at most sixty seconds of audio.',
  'This recording is longer than that, so the SDK cuts it into segments at quiet moments between words.',
  'Each segment becomes its own job. The jobs run side by side, and each one is checked, created, awaited and downloaded.',
  'A manifest in the work folder remembers every job, so running the same call again after a crash pays for nothing twice.',
  'When every segment is ready, the SDK joins the clips into one file, without encoding the pictures again.',
  'The joined file keeps the provenance marks of its segments, and it lists the job of every segment.',
  'Because this example runs against the mock server, the pictures are simple test frames.',
  'Against the real service, the portrait would speak these very words.',
  'That is all for now. Thank you for listening, and goodbye.',
].join(' ');
const talkWav = new URL('talk.tmp.wav', out).pathname;
execFileSync('espeak-ng', ['-s', '130', '-g', '6', '-w', talkWav, talk]);
execFileSync('ffmpeg', [
  '-y',
  '-loglevel',
  'error',
  '-i',
  talkWav,
  '-ac',
  '1',
  '-ar',
  '22050',
  '-c:a',
  'libmp3lame',
  '-b:a',
  '24k',
  new URL('talk.mp3', out).pathname,
]);
rmSync(talkWav);

console.log('wrote portrait.png, speech.wav, presenter.mp4 and talk.mp3 in examples/media');
