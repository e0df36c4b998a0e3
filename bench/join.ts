/**
 * Join ten 60 s 720p segments (made by the mock renderer) and print wall time and peak RSS against the targets.
 * The join runs in a child process so that its peak RSS is its own, not this script's (which renders the inputs),
 * compiled the way the package is built and run by plain node (tsx alone adds about 35 MB of RSS).
 *
 *   npx tsx bench/join.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platform } from '../src/platform/node.js';
import { compile } from './support/build.js';

const SEGMENTS = 10;
const SECONDS = 60;
const TARGET_MS = 3000;
const TARGET_MB = 200;
/** A typical bit rate of a 720p talking-head H.264 stream. */
const REAL_BITRATE = 2_500_000;

const child = await compile(['bench/join-child.ts']);
try {
  const { renderOutput } = await import('../src/testing/render-output.js');
  const { LANDSCAPE_MP4 } = await import('../src/testing/fixtures.generated.js');
  const dir = await mkdtemp(join(tmpdir(), 'avatar-video-bench-'));
  try {
    const segments: Uint8Array[] = [];
    for (let i = 0; i < SEGMENTS; i += 1) segments.push(await renderOutput(LANDSCAPE_MP4, SECONDS, `vid_bench_${i}`));
    await run(dir, 'mock segments', segments);
    // The mock's frames are tiny (crf 40 test pattern); the same segments padded to a real 720p bitrate show that
    // time and memory do not grow with the media bytes.
    const padded: Uint8Array[] = [];
    for (const segment of segments) padded.push(await padVideo(segment, REAL_BITRATE));
    await run(dir, `padded to ${REAL_BITRATE / 1e6} Mbit/s`, padded);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await child.remove();
}

async function run(dir: string, label: string, segments: Uint8Array[]): Promise<void> {
  const inputs: string[] = [];
  for (const [i, bytes] of segments.entries()) {
    const path = join(dir, `segment-${i}.mp4`);
    await writeFile(path, bytes);
    inputs.push(path);
  }
  const output = join(dir, 'joined.mp4');
  const stdout = execFileSync(process.execPath, [child.paths[0] as string, output, ...inputs], { encoding: 'utf8' });
  await rm(output, { force: true });
  const result = JSON.parse(stdout) as { ms: number; maxRssKb: number; baseRss: number; bytes: number; durationSeconds: number };
  const mb = result.maxRssKb / 1024;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  console.log(
    `join, ${label}: ${SEGMENTS} x ${SECONDS} s 1280x720 -> ${result.durationSeconds.toFixed(2)} s, ${(result.bytes / 1e6).toFixed(1)} MB`,
  );
  console.log(`  wall time: ${result.ms.toFixed(0)} ms (target < ${TARGET_MS} ms) ${verdict(result.ms < TARGET_MS)}`);
  const base = (result.baseRss / 1024 / 1024).toFixed(0);
  console.log(
    `  peak RSS:  ${mb.toFixed(0)} MB (target < ${TARGET_MB} MB) ${verdict(mb < TARGET_MB)}; ${base} MB of it before the join started`,
  );
}

/** A copy of an H.264 packet with a filler NAL unit (type 12, which decoders skip) appended, sized for `bitsPerSecond`. */
function padded(packet: import('mediabunny').EncodedPacket, bitsPerSecond: number) {
  const fill = Math.max(0, Math.round((bitsPerSecond / 8) * packet.duration) - packet.data.length - 6);
  const data = new Uint8Array(packet.data.length + fill + 6);
  data.set(packet.data);
  new DataView(data.buffer).setUint32(packet.data.length, fill + 2); // 4-byte NAL length, as the fixture's avcC says
  data[packet.data.length + 4] = 0x0c;
  data.fill(0xff, packet.data.length + 5, data.length - 1);
  data[data.length - 1] = 0x80; // stop bit
  return packet.clone({ data });
}

/** Re-mux `mp4` with a filler NAL unit (type 12, ignored by decoders) appended to each video frame up to `bitsPerSecond`. */
async function padVideo(mp4: Uint8Array, bitsPerSecond: number): Promise<Uint8Array> {
  const mb = await platform.loadMediabunny(); // the copy the mock renderer uses (an ESM import would load a second)
  const input = new mb.Input({ source: new mb.BufferSource(mp4), formats: mb.ALL_FORMATS });
  const output = new mb.Output({ format: new mb.Mp4OutputFormat({ fastStart: 'in-memory' }), target: new mb.BufferTarget() });
  const video = new mb.EncodedVideoPacketSource('avc');
  const audio = new mb.EncodedAudioPacketSource('aac');
  output.addVideoTrack(video);
  output.addAudioTrack(audio);
  output.setMetadataTags(await input.getMetadataTags());
  await output.start();
  const [videoTrack, audioTrack] = [await input.getPrimaryVideoTrack(), await input.getPrimaryAudioTrack()];
  if (!videoTrack || !audioTrack) throw new Error('mock segment without tracks');
  const videoConfig = await videoTrack.getDecoderConfig();
  const audioConfig = await audioTrack.getDecoderConfig();
  if (!videoConfig || !audioConfig) throw new Error('mock segment without decoder configs');
  const videoPackets = new mb.EncodedPacketSink(videoTrack).packets();
  const audioPackets = new mb.EncodedPacketSink(audioTrack).packets();
  let [nextVideo, nextAudio] = [await videoPackets.next(), await audioPackets.next()];
  let [videoStarted, audioStarted] = [false, false];
  // Interleaved by time, as the service writes its files.
  while (!nextVideo.done || !nextAudio.done) {
    if (!nextVideo.done && (nextAudio.done || nextVideo.value.timestamp <= nextAudio.value.timestamp)) {
      await video.add(padded(nextVideo.value, bitsPerSecond), videoStarted ? undefined : { decoderConfig: videoConfig });
      videoStarted = true;
      nextVideo = await videoPackets.next();
    } else if (!nextAudio.done) {
      await audio.add(nextAudio.value, audioStarted ? undefined : { decoderConfig: audioConfig });
      audioStarted = true;
      nextAudio = await audioPackets.next();
    }
  }
  await output.finalize();
  input.dispose();
  return new Uint8Array(output.target.buffer as ArrayBuffer);
}
