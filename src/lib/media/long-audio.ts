import { MediaValidationError, type MediaValidationIssue } from '../../errors.js';
import type { VideoCreateParams } from './prepare.js';
import { probeMedia } from './probe.js';
import { LIMITS, type ValidatedCreate, validateCreateParams } from './validate.js';

/**
 * `validateCreateParams` for a caller that can make long audio in segments (`generateLong`), as the CLI's `generate`
 * and the MCP server's `generate_video` can: `long` says the measured audio is over one job's limit. With
 * `allowLong`, long audio is checked against its own length (each segment gets the per-job limit later); without, it
 * is refused as usual, its duration issue ending with `(hint)`: how to make it anyway.
 * @throws MediaValidationError listing every issue.
 */
export async function validateForSegments(
  params: VideoCreateParams,
  { allowLong, hint }: { allowLong: boolean; hint: string },
): Promise<{ checked: ValidatedCreate; long: boolean }> {
  // Paths only (the CLI's and the MCP server's inputs): probing a one-shot stream would use it up.
  const audio = params.audio_reference;
  const info = typeof audio === 'string' ? await probeMedia(audio).catch(() => undefined) : undefined;
  const seconds = info?.kind === 'audio' ? (info.durationSeconds ?? 0) : 0;
  const long = seconds > LIMITS.maxAudioSeconds;
  try {
    return { checked: await validateCreateParams(params, long && allowLong ? { maxAudioSeconds: Math.ceil(seconds) } : {}), long };
  } catch (error) {
    if (!(error instanceof MediaValidationError) || !long) throw error;
    throw new MediaValidationError(error.issues.map((issue) => withHint(issue, hint)));
  }
}

function withHint(issue: MediaValidationIssue, hint: string): MediaValidationIssue {
  if (issue.field !== 'audio_reference' || issue.code !== 'duration_out_of_range') return issue;
  return { ...issue, message: `${issue.message} (${hint})` };
}
