import type { AvatarVideo, GenerateLongResult, LongProgress, VideoCreateParams } from '../index.js';
import type { Session } from './session.js';

/**
 * Make a video from audio longer than one job takes, through `videos.generateLong`: split at quiet
 * points, generate the segments side by side, join. A line is printed each time a segment changes
 * state; the bar (or a line per tenth) shows the whole. Every job made is recorded in a manifest beside the
 * output, so after a failure or Ctrl-C the same command goes on without paying for them again (run.ts says so).
 */
export async function generateLong(
  client: AvatarVideo,
  params: VideoCreateParams,
  options: { output: string; waitTimeout?: number | undefined },
  session: Session,
): Promise<GenerateLongResult> {
  const seen = new Map<number, string>();
  const rerun = { videoIds: [] as string[] };
  const onProgress = ({ phase, fraction, segments }: LongProgress) => {
    for (const { index, status, jobId } of segments) {
      const line = `segment ${index + 1}/${segments.length}: ${status}${jobId ? ` (${jobId})` : ''}`;
      if (seen.get(index) !== line) session.progress.log(line);
      seen.set(index, line);
      if (jobId && !rerun.videoIds.includes(jobId)) rerun.videoIds.push(jobId);
    }
    // Past the split, the work folder and its manifest exist: from now on the same command goes on.
    session.rerun = rerun;
    session.progress.update('overall', Math.round(fraction * 100), 100, phase);
  };
  return client.videos.generateLong(params, { ...options, signal: session.signal, onProgress });
}
