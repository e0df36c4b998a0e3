/**
 * Billed seconds of long audio split for generateLong: speech-like audio (tone bursts with pauses every 2 to 3 s) and
 * a pure tone, at three lengths, split with splitAudio, then made with generateLong against the mock to read the
 * joined video's and each segment's output length. Prints per case the segments, their lengths, the billed seconds
 * (each segment's OUTPUT rounded up to the 6 s step), the minimum (the whole rounded up), the excess and whether the
 * target (at most the minimum + 3 s) is met.
 *
 *   npx tsx bench/segments.ts
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvatarVideo } from '../src/index.js';
import { probeMedia, splitAudio } from '../src/media/index.js';
import { startMockServer } from '../src/testing/index.js';

const STEP = 6;
const TARGET_EXCESS = 3;
const RATE = 16_000;
const CASES = [
  { seconds: 95, maxSegmentSeconds: 20 },
  { seconds: 65, maxSegmentSeconds: 60 },
  { seconds: 130, maxSegmentSeconds: 30 },
];

/** A deterministic PRNG (mulberry32), so that every run makes the same audio. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 16-bit mono WAV: tone bursts of 2 to 3 s (a 4.5 Hz syllable envelope) with 0.3 to 0.6 s of silence between, or one tone. */
function wav(seconds: number, speech: boolean): { bytes: Uint8Array; pauses: Array<[number, number]> } {
  const pauses: Array<[number, number]> = [];
  const frames = Math.round(seconds * RATE);
  const samples = new Int16Array(frames);
  const next = random(Math.round(seconds));
  let pauseAt = speech ? Math.round((2 + next()) * RATE) : Number.POSITIVE_INFINITY;
  let pauseEnd = 0;
  for (let i = 0; i < frames; i += 1) {
    if (i === pauseAt) {
      pauseEnd = i + Math.round((0.3 + 0.3 * next()) * RATE);
      pauses.push([i / RATE, pauseEnd / RATE]);
      pauseAt = pauseEnd + Math.round((2 + next()) * RATE);
    }
    const t = i / RATE;
    const envelope = speech ? 0.35 + 0.65 * Math.abs(Math.sin(Math.PI * 4.5 * t)) : 1;
    samples[i] = i < pauseEnd ? 0 : Math.round(20_000 * envelope * Math.sin(2 * Math.PI * 220 * t));
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + frames * 2, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(frames * 2, 40);
  return { bytes: Buffer.concat([header, Buffer.from(samples.buffer)]), pauses };
}

const billed = (lengths: number[]) => lengths.reduce((sum, length) => sum + Math.ceil(length / STEP - 1e-9) * STEP, 0);

const dir = await mkdtemp(join(tmpdir(), 'avatar-video-segments-'));
const mock = await startMockServer({ processingMs: 50 });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
const image = new URL('../test/fixtures/mock/portrait.png', import.meta.url);
let allMet = true;
try {
  for (const { seconds, maxSegmentSeconds } of CASES) {
    for (const kind of ['speech-like', 'pure tone'] as const) {
      const name = `${kind.replace(' ', '-')}-${seconds}`;
      const audio = join(dir, `${name}.wav`);
      const made = wav(seconds, kind === 'speech-like');
      await writeFile(audio, made.bytes);
      const split = await splitAudio(audio, { maxSegmentSeconds, outputDir: join(dir, `${name}-split`) });
      const lengths = split.segments.map((s) => s.durationSeconds);
      // The outputs, as the service bills them: each segment's video, made and saved by generateLong (kept work folder).
      const workDir = join(dir, `${name}-work`);
      const output = join(dir, `${name}.mp4`);
      const long = await client.videos.generateLong(
        { audio_reference: audio, image_reference: image },
        { output, workDir, keepWorkDir: true, maxSegmentSeconds, pollInterval: 20, maxPollInterval: 40 },
      );
      const videos = (await readdir(join(workDir, 'video'))).sort();
      const outputs: number[] = [];
      for (const file of videos) outputs.push((await probeMedia(join(workDir, 'video', file))).durationSeconds ?? 0);
      const cuts = split.segments.slice(1).map((s) => s.startSeconds);
      const inPause = cuts.filter((at) => made.pauses.some(([a, b]) => a <= at && at <= b)).length;
      const minimum = Math.ceil(seconds / STEP) * STEP;
      const bill = billed(outputs);
      const met = bill - minimum <= TARGET_EXCESS;
      allMet &&= met;
      console.log(
        `${kind.padEnd(11)} ${String(seconds).padStart(4)} s, max ${maxSegmentSeconds}: ${lengths.length} segments ` +
          `[${lengths.map((l) => l.toFixed(2)).join(', ')}] outputs [${outputs.map((l) => l.toFixed(3)).join(', ')}]; ` +
          `billed ${bill} s (audio alone ${billed(lengths)}), minimum ${minimum}, excess ${bill - minimum} s, ` +
          `cuts in pauses ${inPause}/${cuts.length}, joined ${long.durationSeconds.toFixed(3)} s; target ${met ? 'met' : 'MISSED'}`,
      );
    }
  }
  console.log(`all targets ${allMet ? 'met' : 'NOT met'}`);
} finally {
  await client.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
}
