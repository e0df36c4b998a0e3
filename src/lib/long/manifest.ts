import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AvatarVideoError } from '../../errors.js';
import { writeFileAtomic } from '../../internal/atomic-file.js';
import { shorten } from '../../internal/shorten.js';

/**
 * The record of a long generation, kept in its work folder so that nothing paid for is lost: a rerun
 * after a crash, an abort or a failed segment re-polls jobs already created and reuses segments already
 * downloaded instead of creating them again.
 */
export interface LongManifest {
  version: 1;
  /** What the run was asked to make; a rerun with other inputs must not reuse these jobs. */
  input: { audioSha256: string; visualSha256: string; visualField: string; model: string | null; maxSegmentSeconds: number };
  segments: SegmentRecord[];
}

export interface SegmentRecord {
  index: number;
  /** Segment audio, relative to the work folder. */
  audio: string;
  audioSha256: string;
  startSeconds: number;
  durationSeconds: number;
  /** The job made for the current attempt; null until created, and again after a failure. */
  jobId: string | null;
  status: 'pending' | 'created' | 'downloaded' | 'failed';
  /** Jobs that ended FAILED or CANCELLED for this segment. */
  attempts: number;
  /** Downloaded MP4, relative to the work folder, once status is `downloaded`. */
  video: string | null;
  bytes: number | null;
  /** The last failure, for the error message and for people reading the file. */
  error: { jobId: string; code: string; message: string } | null;
}

const MANIFEST_NAME = 'manifest.json';

export async function readManifest(workDir: string): Promise<LongManifest | undefined> {
  const path = join(workDir, MANIFEST_NAME);
  const unreadable = (why: string, cause?: unknown) =>
    new AvatarVideoError(
      `${shorten(path)} ${why}; use another workDir, or remove that folder to start over (jobs it names are not resumed then).`,
      {
        cause,
      },
    );
  let manifest: LongManifest;
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as LongManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (!(error instanceof SyntaxError)) throw error;
    // A truncated or hand-edited file: say which file, not just "Unexpected end of JSON input".
    throw unreadable('is not valid JSON', error);
  }
  if (manifest?.version !== 1 || !Array.isArray(manifest.segments)) throw unreadable('is not a manifest this SDK understands');
  return manifest;
}

/** Saves the manifest atomically (see `writeFileAtomic`), one save at a time, in call order. */
export class ManifestWriter {
  #queue: Promise<void> = Promise.resolve();
  readonly #path: string;
  readonly manifest: LongManifest;

  constructor(workDir: string, manifest: LongManifest) {
    this.#path = join(workDir, MANIFEST_NAME);
    this.manifest = manifest;
  }

  save(): Promise<void> {
    const snapshot = `${JSON.stringify(this.manifest, null, 2)}\n`;
    this.#queue = this.#queue.then(() => writeFileAtomic(this.#path, snapshot));
    return this.#queue;
  }
}
