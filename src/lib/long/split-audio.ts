import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOptions } from '../../internal/arguments.js';
import { openSource } from '../../internal/source.js';
import type { Uploadable } from '../../uploads.js';
import { probeSource } from '../media/probe.js';
import { throwIfAborted, writeSegmentFile } from './segment-file.js';
import { planMp3Split } from './split-mp3.js';
import { splitSettings, unsupportedAudio } from './split-plan.js';
import { planWavSplit } from './split-wav.js';

export interface SplitAudioOptions {
  /**
   * Longest segment, in seconds: the service takes 60 s of audio per job.
   * @default 60
   */
  maxSegmentSeconds?: number | undefined;
  /**
   * Shortest segment, in seconds, the last one included (the cut before it moves earlier if needed).
   * At most half of `maxSegmentSeconds`.
   * @default 1
   */
  minSegmentSeconds?: number | undefined;
  /**
   * How far before each limit to look for a pause, in seconds.
   * @default 10
   */
  searchWindowSeconds?: number | undefined;
  /**
   * The service's billing step, in seconds: each segment's video is billed rounded up to a multiple of it. Cuts go
   * 0.1 s under a multiple (a video may come out a frame longer than its audio), into a pause when one lies within
   * reach, so that the segments together are billed as little as the whole audio would be. Pass the client's
   * `billingIncrementSeconds` so that a split of your own is billed as `generateLong`'s is.
   * @default 6 (the service's published increment)
   */
  billingIncrementSeconds?: number | undefined;
  /**
   * Folder the segment files are written to, created if missing. Files are named `segment-000.wav` and so on;
   * existing files of those names are replaced.
   * @default a new folder under `os.tmpdir()`
   */
  outputDir?: string | undefined;
  /** Stops the split; a segment file being written is removed, finished ones stay. @default undefined */
  signal?: AbortSignal | undefined;
}

/** One piece of the audio, written to its own file. */
export interface AudioSegment {
  /** The segment file: a complete WAV or MP3 of its own. */
  path: string;
  /** Position among the segments, from 0. */
  index: number;
  /** Where the segment starts in the original audio. */
  startSeconds: number;
  /** Its length, as a probe of its file measures it. */
  durationSeconds: number;
  format: 'wav' | 'mp3';
}

export interface SplitAudioResult {
  segments: AudioSegment[];
  /** Duration of the original audio, as `probeMedia` measures it. */
  durationSeconds: number;
}

/**
 * Split long audio (WAV or MP3) into segments of `minSegmentSeconds` to `maxSegmentSeconds`, each a valid file of the
 * same format, cutting in the last `searchWindowSeconds` before each limit, just under a multiple of
 * `billingIncrementSeconds` so that the segments are billed no more than the whole would be, and in a pause when one
 * lies within reach of it (else where the billing wants it). Audio no longer than the limit gives one segment, a
 * byte-for-byte copy.
 *
 * - WAV (PCM, float, A-law, mu-law) is cut sample-exactly; the segments' sample counts add up to the original's.
 *   Pauses come from the energy of 20 ms frames, read only around each limit; nothing is read whole.
 * - MP3 is cut at frame boundaries; the segments' frame counts add up to the original's. Quiet points come from
 *   an energy estimated from each frame's side info (no MP3 decoder is available in Node): a heuristic. Segments carry no ID3 or Xing/LAME header, so
 *   a header's gapless trim (under 0.1 s) is not carried: their durations add up to the original's untrimmed length.
 * - Input that is not WAV or MP3, or a compressed WAV, rejects with a `MediaValidationError`.
 *
 * @example
 * const { segments } = await splitAudio('./talk.wav', { outputDir: './parts' });
 */
export async function splitAudio(source: Uploadable, options?: SplitAudioOptions): Promise<SplitAudioResult> {
  const { outputDir: folder, ...rest } = checkOptions('splitAudio', options);
  const settings = splitSettings(rest);
  throwIfAborted(settings.signal);
  const local = await openSource(source, 'audio_reference');
  try {
    const info = await probeSource(local, 'audio_reference');
    if (info.kind !== 'audio' || (info.format !== 'wav' && info.format !== 'mp3')) {
      throw unsupportedAudio(local.name, `is ${info.format.toUpperCase()} ${info.kind}`, 'splitAudio cuts WAV and MP3 audio');
    }
    const { format, durationSeconds = 0 } = info;
    const outputDir = folder ?? (await mkdtemp(join(tmpdir(), 'avatar-video-segments-')));
    await mkdir(outputDir, { recursive: true });
    // Short enough already: the one segment is the file itself, copied as it is.
    const planned =
      durationSeconds <= settings.maxSeconds
        ? [{ startSeconds: 0, durationSeconds, parts: [{ start: 0, length: local.size }] }]
        : await (format === 'wav' ? planWavSplit : planMp3Split)(local, settings);
    const segments: AudioSegment[] = [];
    for (const [index, segment] of planned.entries()) {
      const path = join(outputDir, `segment-${String(index).padStart(3, '0')}.${format}`);
      await writeSegmentFile(path, local, segment.parts, settings.signal);
      segments.push({ path, index, startSeconds: segment.startSeconds, durationSeconds: segment.durationSeconds, format });
    }
    return { segments, durationSeconds };
  } finally {
    await local.dispose();
  }
}
