import { join, relative } from 'node:path';
import { AvatarVideoError } from '../../errors.js';
import { prepareOutputFolder } from '../../internal/output-path.js';
import { shorten } from '../../internal/shorten.js';
import type { Uploadable } from '../../uploads.js';
import { InputHasher } from '../media/inputs-hash.js';
import type { VideoCreateParams } from '../media/prepare.js';
import { type LongManifest, ManifestWriter, readManifest, type SegmentRecord } from './manifest.js';
import { type AudioSegment, splitAudio } from './split-audio.js';

/** A long run's folder, ready for its segment jobs: audio split, manifest saved. */
export interface WorkFolder {
  workDir: string;
  /** The manifest, with one record per segment (those of an earlier run kept). */
  writer: ManifestWriter;
  /** The create parameters of one segment: its audio and the run's visual reference and model. */
  segmentParams(audio: string): VideoCreateParams;
}

/**
 * Set up `workDir` for a run, or take up the run recorded there; a manifest of other inputs is refused (its jobs are
 * not this video's). The inputs are read more than once: `generateLong` has spooled any stream already.
 */
export async function prepareWorkFolder(
  workDir: string,
  params: VideoCreateParams,
  split: { maxSegmentSeconds: number; billingIncrementSeconds: number },
  signal: AbortSignal | undefined,
): Promise<WorkFolder> {
  const { maxSegmentSeconds, billingIncrementSeconds } = split;
  await prepareOutputFolder(workDir);
  const visualField = params.video_reference !== undefined ? 'video_reference' : 'image_reference';
  const visual = params[visualField] as Uploadable;
  const model = params.model ? { model: params.model } : {};
  const segmentParams = (audio: string) => ({ audio_reference: audio, [visualField]: visual, ...model }) as VideoCreateParams;
  const input: LongManifest['input'] = {
    audioSha256: await sha256(params.audio_reference),
    visualSha256: await sha256(visual),
    visualField,
    model: params.model ?? null,
    maxSegmentSeconds,
  };

  const existing = await readManifest(workDir);
  if (existing && JSON.stringify(existing.input) !== JSON.stringify(input)) {
    throw new AvatarVideoError(
      `${shorten(workDir)} holds the jobs of a different long video (other audio, visual reference, model or segment length). Use another workDir, or remove it to start over.`,
    );
  }
  const writer = new ManifestWriter(workDir, existing ?? { version: 1, input, segments: [] });
  if (!existing || !(await segmentsIntact(workDir, existing))) {
    // The billing step is not part of `input`: a rerun keeps the segments (and jobs) an earlier split made.
    const outputDir = join(workDir, 'audio');
    const made = await splitAudio(params.audio_reference, { maxSegmentSeconds, billingIncrementSeconds, outputDir, signal });
    writer.manifest.segments = await Promise.all(made.segments.map((segment) => segmentRecord(workDir, segment, existing)));
    await writer.save();
  }
  return { workDir, writer, segmentParams };
}

/** The record of one split segment: a new one, or the earlier run's for the very same audio. */
async function segmentRecord(workDir: string, segment: AudioSegment, existing: LongManifest | undefined): Promise<SegmentRecord> {
  const sha = await sha256(segment.path);
  const previous = existing?.segments[segment.index];
  // Splitting is deterministic; a record is reused only for the very same segment audio.
  if (previous && previous.audioSha256 === sha) return previous;
  return {
    index: segment.index,
    audio: relative(workDir, segment.path),
    audioSha256: sha,
    startSeconds: segment.startSeconds,
    durationSeconds: segment.durationSeconds,
    jobId: null,
    status: 'pending',
    attempts: 0,
    video: null,
    bytes: null,
    error: null,
  };
}

/** Whether the segment audio of an earlier split is all there, unchanged. */
async function segmentsIntact(workDir: string, manifest: LongManifest): Promise<boolean> {
  for (const segment of manifest.segments) {
    if ((await sha256(join(workDir, segment.audio)).catch(() => undefined)) !== segment.audioSha256) return false;
  }
  return manifest.segments.length > 0;
}

/** The digest of an input's bytes, as a batch fingerprints its inputs (no cache: a split rewrites its files). */
const sha256 = (input: Uploadable) => new InputHasher().hashInput(input);
