import { createRequire } from 'node:module';
import type { EncodedPacket, InputTrack } from 'mediabunny';

/**
 * mediabunny, with `require` in both builds, and in the built package the copy it ships (src/build-constants.d.ts),
 * as the SDK loads it (its platform/node.ts): an app using both the SDK and this mock loads one copy, not
 * two ("Mediabunny was loaded twice"). On first render, so that importing the mock does not pay for it.
 */
const mediabunny = (): typeof import('mediabunny') =>
  createRequire(import.meta.url)(typeof __VENDORED_MEDIABUNNY__ === 'string' ? __VENDORED_MEDIABUNNY__ : 'mediabunny');

/*
 * Finished videos of any length, built without an encoder: the 1 s fixture's packets are repeated with shifted
 * timestamps. The fixture has a single keyframe at 0 (25 frames, one GOP), so every repetition starts with a keyframe
 * and decodes on its own. Audio is laid out as one continuous AAC stream (a priming packet at a negative time, then
 * 1024-sample packets back to back, the last one trimmed), the way an encoder writes it; the sound clicks once a
 * second where the fixture's packets wrap around, which no test listens to.
 */

/** What every rendered output carries as its provenance marker (an MP4 `mdta` metadata key). */
export const PROVENANCE_KEY = 'provenance';

/** The marker's value for a job: `avatar-video-mock; job=<id>`. */
export const provenanceValue = (jobId: string) => `avatar-video-mock; job=${jobId}`;

type Clip = Awaited<ReturnType<typeof loadClip>>;

const clips = new WeakMap<Uint8Array, Promise<Clip>>();

async function readPackets(track: InputTrack): Promise<EncodedPacket[]> {
  const { EncodedPacketSink } = mediabunny();
  const packets: EncodedPacket[] = [];
  for await (const packet of new EncodedPacketSink(track).packets()) packets.push(packet);
  return packets;
}

async function loadClip(fixture: Uint8Array) {
  const { ALL_FORMATS, BufferSource, Input } = mediabunny();
  const input = new Input({ source: new BufferSource(fixture), formats: ALL_FORMATS });
  try {
    const videoTrack = await input.getPrimaryVideoTrack();
    const audioTrack = await input.getPrimaryAudioTrack();
    const videoConfig = await videoTrack?.getDecoderConfig();
    const audioConfig = await audioTrack?.getDecoderConfig();
    if (!videoTrack || !audioTrack || !videoConfig || !audioConfig) throw new Error('The mock fixture needs a video and an audio track.');
    const video = await readPackets(videoTrack);
    const allAudio = await readPackets(audioTrack);
    if (video[0]?.type !== 'key' || video.slice(1).some((packet) => packet.type === 'key')) {
      throw new Error('The mock fixture must hold exactly one GOP starting with a keyframe.');
    }
    // The packets at or after 0, and the AAC priming packet before them.
    const audio = allAudio.filter((packet) => packet.timestamp >= 0);
    const priming = allAudio.find((packet) => packet.timestamp < 0);
    // audioPacket: the AAC packet period (1024 / 48000 s).
    return { video, audio, priming, videoConfig, audioConfig, audioPacket: 1024 / audioConfig.sampleRate };
  } finally {
    input.dispose();
  }
}

function clipOf(fixture: Uint8Array): Promise<Clip> {
  const clip = clips.get(fixture) ?? loadClip(fixture);
  clips.set(fixture, clip);
  return clip;
}

/**
 * Video packets (decode order) covering `[0, seconds)`: whole repetitions of the GOP, then, for a remainder shorter
 * than the GOP, its keyframe alone held until `seconds`. A cut GOP would end on a B-frame in decode order but on a
 * P-frame in presentation order, and readers disagree on which one's duration ends the track; a lone keyframe
 * leaves no doubt (the price is a still frame of under a second at the end).
 */
function videoPackets(clip: Clip, seconds: number): EncodedPacket[] {
  const key = clip.video[0] as EncodedPacket;
  const period = clip.video.length * key.duration;
  const packets: EncodedPacket[] = [];
  let start = 0;
  for (; start + period <= seconds + 1e-9; start += period) {
    for (const packet of clip.video) packets.push(packet.clone({ timestamp: packet.timestamp + start }));
  }
  if (seconds - start > 1e-6) packets.push(key.clone({ timestamp: start, duration: seconds - start }));
  return packets;
}

/** A continuous AAC stream of `seconds`: the priming packet, then the fixture's packets cycled, the last one trimmed. */
function audioPackets(clip: Clip, seconds: number): EncodedPacket[] {
  const packets: EncodedPacket[] = [];
  if (clip.priming) packets.push(clip.priming.clone({ timestamp: -clip.audioPacket, duration: clip.audioPacket }));
  const count = Math.ceil(seconds / clip.audioPacket - 1e-9);
  for (let i = 0; i < count; i += 1) {
    const source = clip.audio[i % clip.audio.length] as EncodedPacket;
    const timestamp = i * clip.audioPacket;
    packets.push(source.clone({ timestamp, duration: Math.min(clip.audioPacket, seconds - timestamp), type: 'key' }));
  }
  return packets;
}

/**
 * An MP4 of `seconds` (as close as the track timescales allow) made from `fixture` (one of the 1 s mock fixtures),
 * carrying the provenance marker of `jobId` in the metadata tag {@link PROVENANCE_KEY}.
 */
export async function renderOutput(fixture: Uint8Array, seconds: number, jobId: string): Promise<Uint8Array> {
  if (!(seconds > 0)) throw new RangeError(`A rendered output needs a positive duration, got ${seconds}.`);
  const clip = await clipOf(fixture);
  const { BufferTarget, EncodedAudioPacketSource, EncodedVideoPacketSource, Mp4OutputFormat, Output } = mediabunny();
  const target = new BufferTarget();
  // 'in-memory' fast start: mock outputs are small (about 20 KB a second) and served from memory anyway.
  const output = new Output({ format: new Mp4OutputFormat({ fastStart: 'in-memory', metadataFormat: 'mdta' }), target });
  const video = new EncodedVideoPacketSource('avc');
  const audio = new EncodedAudioPacketSource('aac');
  output.addVideoTrack(video);
  output.addAudioTrack(audio);
  output.setMetadataTags({ raw: { [PROVENANCE_KEY]: provenanceValue(jobId) } });
  await output.start();
  const videoQueue = videoPackets(clip, seconds);
  const audioQueue = audioPackets(clip, seconds);
  // Interleaved by time, as an encoder would write them; each track's first packet carries its decoder config.
  for (let v = 0, a = 0; v < videoQueue.length || a < audioQueue.length; ) {
    const nextVideo = videoQueue[v];
    const nextAudio = audioQueue[a];
    if (nextVideo && (!nextAudio || nextVideo.timestamp <= nextAudio.timestamp)) {
      await video.add(nextVideo, v === 0 ? { decoderConfig: clip.videoConfig } : undefined);
      v += 1;
    } else {
      await audio.add(nextAudio as EncodedPacket, a === 0 ? { decoderConfig: clip.audioConfig } : undefined);
      a += 1;
    }
  }
  await output.finalize();
  if (!target.buffer) throw new Error('The mock renderer produced no output.');
  return new Uint8Array(target.buffer);
}
