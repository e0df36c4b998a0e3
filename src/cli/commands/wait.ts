import type { Command } from 'commander';
import type { Video, WaitProgress } from '../../index.js';
import { formatVideo } from '../format.js';
import { secondsToMs } from '../parse.js';
import type { Session } from '../session.js';
import { renderProgress } from '../watch.js';

export function registerWait(program: Command, session: Session): void {
  program
    .command('wait')
    .description('wait until a video job is COMPLETE, showing its progress; exit 1 if it fails or is cancelled')
    .argument('<id>', 'video id')
    .option('--timeout <seconds>', 'stop waiting after this long; the job keeps running (default: 600)', secondsToMs)
    .action(async (id: string, flags: { timeout?: number }) => {
      const render = renderProgress(session);
      const video = await session.client().videos.waitForCompletion(id, {
        waitTimeout: flags.timeout,
        signal: session.signal,
        // Tracked once seen: an id the service does not know gets no "to go on" advice.
        onProgress: (seen: Video, estimate: WaitProgress) => {
          session.track(seen);
          render(seen, estimate);
        },
      });
      session.result(video, formatVideo(video));
    });
}
