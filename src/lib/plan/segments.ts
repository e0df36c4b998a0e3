import { openSource } from '../../internal/source.js';
import type { Uploadable } from '../../uploads.js';
import { planMp3Split } from '../long/split-mp3.js';
import { splitSettings, unsupportedAudio } from '../long/split-plan.js';
import { planWavSplit } from '../long/split-wav.js';
import { probeSource } from '../media/probe.js';

/**
 * The segments long `audio` would be cut into, as `generateLong` cuts it (its `splitAudio`, with the same settings), found
 * by the same planning functions but with no file written: where each starts and how long it lasts.
 * @throws MediaValidationError for audio that cannot be cut (not WAV or MP3, a compressed WAV).
 */
export async function plannedSegments(
  audio: Uploadable,
  maxSegmentSeconds: number,
  billingIncrementSeconds: number,
): Promise<Array<{ startSeconds: number; durationSeconds: number }>> {
  const local = await openSource(audio, 'audio_reference');
  try {
    const info = await probeSource(local, 'audio_reference');
    if (info.kind !== 'audio' || (info.format !== 'wav' && info.format !== 'mp3')) {
      throw unsupportedAudio(
        local.name,
        `is ${info.format.toUpperCase()} ${info.kind}`,
        'long audio is cut as splitAudio cuts it: WAV or MP3',
      );
    }
    // The billing step generateLong hands its split too, so the plan's cuts are the ones it will make.
    const split = { maxSegmentSeconds, billingIncrementSeconds };
    const planned = await (info.format === 'wav' ? planWavSplit : planMp3Split)(local, splitSettings(split));
    return planned.map(({ startSeconds, durationSeconds }) => ({ startSeconds, durationSeconds }));
  } finally {
    await local.dispose();
  }
}
