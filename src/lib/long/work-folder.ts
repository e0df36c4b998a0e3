import { createWriteStream } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { AvatarVideoError } from '../../errors.js';
import { prepareOutputFolder } from '../../internal/output-path.js';
import { openSource } from '../../internal/source.js';
import type { Uploadable } from '../../uploads.js';
import type { VideoCreateParams } from '../media/prepare.js';
import { type LongManifest, ManifestWriter, readManifest, type SegmentRecord, sha256File } from './manifest.js';
import { type AudioSegment, splitAudio } from './split-audio.js';

/** A long run's folder, ready for its segment jobs: inputs copied in, audio split, manifest saved. */
export interface WorkFolder {
  workDir: string;
  /** The manifest, with one record per segment (those of an earlier run kept). */
  writer: ManifestWriter;
  /** The create parameters of one segment: its audio and the run's visual reference and model. */
  segmentParams(audio: string): VideoCreateParams;
}

/**
 * Set up `workDir` for a run, or take up the run recorded there: the inputs get paths the segments can
 * upload again and again, and a manifest of other inputs is refused (its jobs are not this video's).
 */
export async function prepareWorkFolder(
  workDir: string,
  params: VideoCreateParams,
  maxSegmentSeconds: number,
  signal: AbortSignal | undefined,
): Promise<WorkFolder> {
  await prepareOutputFolder(workDir);
  const visualField = params.video_reference !== undefined ? 'video_reference' : 'image_reference';
  const audioPath = await materialise(params.audio_reference, join(workDir, 'input-audio'));
  const visualPath = await materialise(params[visualField] as Uploadable, join(workDir, 'input-visual'));
  const model = params.model ? { model: params.model } : {};
  const segmentParams = (audio: string) => ({ audio_reference: audio, [visualField]: visualPath, ...model }) as VideoCreateParams;
  const input: LongManifest['input'] = {
    audioSha256: await sha256File(audioPath),
    visualSha256: await sha256File(visualPath),
    visualField,
    model: params.model ?? null,
    maxSegmentSeconds,
  };

  const existing = await readManifest(workDir);
  if (existing && JSON.stringify(existing.input) !== JSON.stringify(input)) {
    throw new AvatarVideoError(
      `${workDir} holds the jobs of a different long video (other audio, visual reference, model or segment length). Use another workDir, or remove it to start over.`,
    );
  }
  const writer = new ManifestWriter(workDir, existing ?? { version: 1, input, segments: [] });
  if (!existing || !(await segmentsIntact(workDir, existing))) {
    const split = await splitAudio(audioPath, { maxSegmentSeconds, outputDir: join(workDir, 'audio'), signal });
    writer.manifest.segments = await Promise.all(split.segments.map((segment) => segmentRecord(workDir, segment, existing)));
    await writer.save();
  }
  return { workDir, writer, segmentParams };
}

/** The record of one split segment: a new one, or the earlier run's for the very same audio. */
async function segmentRecord(workDir: string, segment: AudioSegment, existing: LongManifest | undefined): Promise<SegmentRecord> {
  const sha = await sha256File(segment.path);
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

/** A path the segments can upload again and again: paths are used as they are, anything else is copied once. */
async function materialise(input: Uploadable, target: string): Promise<string> {
  if (typeof input === 'string') return resolve(input);
  if (input instanceof URL && input.protocol === 'file:') return fileURLToPath(input);
  const source = await openSource(input, basename(target));
  try {
    if (source.path) {
      await copyFile(source.path, target);
    } else {
      // A Blob may be file-backed and large: stream it rather than read it whole.
      await pipeline(Readable.from(source.toFile(basename(target), '').stream()), createWriteStream(target));
    }
  } finally {
    await source.dispose();
  }
  return target;
}

/** Whether the segment audio of an earlier split is all there, unchanged. */
async function segmentsIntact(workDir: string, manifest: LongManifest): Promise<boolean> {
  for (const segment of manifest.segments) {
    if ((await sha256File(join(workDir, segment.audio)).catch(() => undefined)) !== segment.audioSha256) return false;
  }
  return manifest.segments.length > 0;
}
