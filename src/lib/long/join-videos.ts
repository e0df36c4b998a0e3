import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { EncodedPacket, MetadataTags } from 'mediabunny';
import { platform } from '#platform';
import { JoinError } from '../../errors.js';
import { checkArgument, checkOptions, isFilled, pathTo } from '../../internal/arguments.js';
import { writeFileAtomic } from '../../internal/atomic-file.js';
import { type Clip, countKeptPackets, differences, keptPackets, openClip } from './clip.js';
import { joinedTags } from './provenance.js';
import { throwIfAborted } from './segment-file.js';

export interface JoinVideosOptions {
  /** Stops the join: the temporary file is removed and the call rejects with `APIUserAbortError`. @default undefined */
  signal?: AbortSignal | undefined;
  /** Called after each input is copied, with the share of the joined duration written so far (0 to 1). @default undefined */
  onProgress?: ((fraction: number) => void) | undefined;
  /** What the joined file records on top of the metadata carried over from the inputs. @default {} */
  metadata?:
    | {
        /**
         * Job ids of the inputs, in order, written as a JSON array under the `avatar-video.segments` tag.
         * @default none (the tag is not written)
         */
        segmentIds?: readonly string[] | undefined;
      }
    | undefined;
}

export interface JoinVideosResult {
  /** The output path, as given. */
  path: string;
  /** Size of the joined file. */
  bytes: number;
  /** Sum of the inputs' durations, which is the joined file's duration. */
  durationSeconds: number;
}

interface Plan {
  /** What pass one learns about each input; its file is closed again until pass two copies it. */
  clips: Array<Pick<Clip, 'path' | 'durationSeconds'>>;
  /** The first input's tracks, which every other input matches. */
  first: Pick<Clip, 'videoSettings' | 'audioSettings'>;
  /** Packets each output track will receive: fast start reserves the room for their tables before the media data. */
  videoPackets: number;
  audioPackets: number;
  tags: MetadataTags;
  durationSeconds: number;
}

/** Bytes gathered per write: mediabunny's 16 MiB default cost about 30 MB more peak RSS in bench/join.ts and gained no speed. */
const WRITE_CHUNK_BYTES = 2 * 1024 * 1024;

const throwIfJoinAborted = (signal: AbortSignal | undefined) => throwIfAborted(signal, 'The join');

/**
 * Join MP4 files end to end into one MP4 without re-encoding, reading and writing packets with mediabunny.
 *
 * - Packets timed before 0 (an AAC encoder's priming) are dropped; inputs whose tracks could not share one MP4 track
 *   (codec, coded size, rotation, sample rate, channels, decoder configuration) are refused with a {@link JoinError}
 *   naming the file and every difference, before anything is written.
 * - Sync: each input's video and audio both start at the same offset, the sum of the durations of the inputs before
 *   it (a duration being the later of its video and audio ends). A track shorter than its input leaves a gap
 *   inside that input only, so nothing accumulates across joins.
 * - The file is written with its `moov` before `mdat` (plays while downloading) and without holding media in memory:
 *   mediabunny's `fastStart: 'reserve'` leaves room for the sample tables sized from the exact packet counts, then
 *   streams packets to disk. It goes to a temporary file next to `output`, renamed into place once complete and
 *   flushed; on any failure or abort the temporary file is removed and `output` is untouched.
 * - Provenance: the metadata items of every input are carried over by key, and
 *   `options.metadata.segmentIds` is recorded under `avatar-video.segments`.
 *
 * @example
 * const { durationSeconds } = await joinVideos(['part-1.mp4', 'part-2.mp4'], 'talk.mp4');
 */
export async function joinVideos(inputs: readonly string[], output: string, options?: JoinVideosOptions): Promise<JoinVideosResult> {
  const paths = (list: unknown) => Array.isArray(list) && list.every(isFilled);
  checkArgument('joinVideos', 'inputs', inputs, [paths, "an array of MP4 file paths, e.g. ['part-1.mp4', 'part-2.mp4']"]);
  checkArgument('joinVideos', 'output', output, pathTo("the file to write, e.g. 'joined.mp4'"));
  const checked = checkOptions('joinVideos', options);
  const { signal } = checked;
  if (inputs.length === 0) throw new JoinError(output, 'joinVideos needs at least one input file.');
  throwIfJoinAborted(signal);
  const plan = await planJoin(inputs, checked.metadata?.segmentIds, signal);
  await writeFileAtomic(output, (file) => writeJoined(plan, file.path, checked));
  return { path: output, bytes: (await stat(output)).size, durationSeconds: plan.durationSeconds };
}

/** Pass one: open every input once, check it against the first, count its packets and read its tags. */
async function planJoin(inputs: readonly string[], segmentIds: readonly string[] | undefined, signal?: AbortSignal): Promise<Plan> {
  let first: Clip | undefined;
  const allTags: MetadataTags[] = [];
  const plan: Omit<Plan, 'first' | 'tags'> = { clips: [], videoPackets: 0, audioPackets: 0, durationSeconds: 0 };
  for (const path of inputs) {
    throwIfJoinAborted(signal);
    const clip = await openClip(path);
    try {
      first ??= clip;
      const found = differences(first, clip);
      if (found.length > 0) {
        throw new JoinError(
          path,
          `${basename(path)} cannot be joined to ${basename(first.path)} without re-encoding: ${found.join('; ')}.`,
          found,
        );
      }
      const video = await countKeptPackets(clip.video);
      if (!video.startsWithKey) throw new JoinError(path, `${basename(path)} cannot be joined: its video does not start with a keyframe.`);
      plan.videoPackets += video.count;
      if (clip.audio) plan.audioPackets += (await countKeptPackets(clip.audio)).count;
      plan.clips.push({ path, durationSeconds: clip.durationSeconds });
      plan.durationSeconds += clip.durationSeconds;
      allTags.push(clip.tags);
    } finally {
      clip.input.dispose();
    }
  }
  // `first` is set: joinVideos refuses an empty list.
  return { ...plan, first: first!, tags: joinedTags(allTags, segmentIds) };
}

/** Pass two: copy every input's packets, shifted by the inputs before it, into `path`. */
async function writeJoined(plan: Plan, path: string, options: JoinVideosOptions): Promise<void> {
  const { EncodedAudioPacketSource, EncodedVideoPacketSource, FilePathTarget, Mp4OutputFormat, Output } = await platform.loadMediabunny();
  const output = new Output({
    // 'mdta' metadata takes keys of any length, so every carried tag keeps its own name (see provenance.ts).
    format: new Mp4OutputFormat({ fastStart: 'reserve', metadataFormat: 'mdta' }),
    target: new FilePathTarget(path, { chunkSize: WRITE_CHUNK_BYTES }),
  });
  const { videoSettings, audioSettings } = plan.first;
  const video = new EncodedVideoPacketSource(videoSettings.kind);
  output.addVideoTrack(video, { maximumPacketCount: Math.max(1, plan.videoPackets), rotation: videoSettings.rotation });
  const writeVideo = firstCarriesConfig((packet, meta) => video.add(packet, meta), videoSettings.config);
  let writeAudio: PacketWriter | undefined;
  if (audioSettings) {
    const audio = new EncodedAudioPacketSource(audioSettings.kind);
    output.addAudioTrack(audio, { maximumPacketCount: Math.max(1, plan.audioPackets) });
    writeAudio = firstCarriesConfig((packet, meta) => audio.add(packet, meta), audioSettings.config);
  }
  output.setMetadataTags(plan.tags);
  try {
    await output.start();
    let offset = 0;
    for (const planned of plan.clips) {
      const clip = await openClip(planned.path);
      try {
        await copyClip(clip, offset, writeVideo, writeAudio, options.signal);
      } finally {
        clip.input.dispose();
      }
      offset += planned.durationSeconds;
      options.onProgress?.(plan.durationSeconds > 0 ? offset / plan.durationSeconds : 1);
    }
    await output.finalize();
  } catch (error) {
    if (output.state !== 'finalized') await output.cancel().catch(() => {});
    throw error;
  }
}

type PacketWriter = (packet: EncodedPacket) => Promise<void>;

/** A writer for an output track whose first packet carries the decoder configuration, as mediabunny requires. */
function firstCarriesConfig<C>(add: (packet: EncodedPacket, meta?: { decoderConfig: C }) => Promise<void>, decoderConfig: C): PacketWriter {
  let first = true;
  return (packet) => {
    const meta = first ? { decoderConfig } : undefined;
    first = false;
    return add(packet, meta);
  };
}

const noPackets = async function* (): AsyncGenerator<EncodedPacket> {};

/** Copy one input, video and audio interleaved by time so that a player reading the file in order finds both together. */
async function copyClip(clip: Clip, offset: number, writeVideo: PacketWriter, writeAudio: PacketWriter | undefined, signal?: AbortSignal) {
  const video = keptPackets(clip.video);
  const audio = clip.audio && writeAudio ? keptPackets(clip.audio) : noPackets();
  const shifted = (packet: EncodedPacket) => packet.clone({ timestamp: packet.timestamp + offset });
  let nextVideo = await video.next();
  let nextAudio = await audio.next();
  while (!nextVideo.done || !nextAudio.done) {
    throwIfJoinAborted(signal);
    if (!nextVideo.done && (nextAudio.done || nextVideo.value.timestamp <= nextAudio.value.timestamp)) {
      await writeVideo(shifted(nextVideo.value));
      nextVideo = await video.next();
    } else if (!nextAudio.done && writeAudio) {
      await writeAudio(shifted(nextAudio.value));
      nextAudio = await audio.next();
    }
  }
}
