import type { AvatarVideo, GenerateLongResult, LongProgress, VideoCreateParams } from '../index.js';
import type { Session } from './session.js';

/**
 * Make a video from audio longer than one job takes, through `videos.generateLong`: split at quiet
 * points, generate the segments side by side, join. A line is printed each time a segment changes
 * state; the bar (or a line per tenth) shows the whole.
 */
export async function generateLong(
  client: AvatarVideo,
  params: VideoCreateParams,
  options: { output: string; waitTimeout?: number | undefined },
  session: Session,
): Promise<GenerateLongResult> {
  const seen = new Map<number, string>();
  const onProgress = ({ phase, fraction, segments }: LongProgress) => {
    for (const { index, status, jobId } of segments) {
      const line = `segment ${index + 1}/${segments.length}: ${status}${jobId ? ` (${jobId})` : ''}`;
      if (seen.get(index) !== line) session.progress.log(line);
      seen.set(index, line);
    }
    session.progress.update('overall', Math.round(fraction * 100), 100, phase);
  };
  try {
    return await client.videos.generateLong(params, { ...options, signal: session.signal, onProgress });
  } catch (error) {
    // generateLong keeps a manifest beside the output: the same command picks up where this one stopped.
    if (seen.size > 0) session.note('Finished segments are kept: run the same command again to resume without paying for them twice.');
    throw error;
  }
}
