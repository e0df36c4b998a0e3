import type { Command } from 'commander';
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
      const video = await session.client().videos.waitForCompletion(id, {
        waitTimeout: flags.timeout,
        signal: session.signal,
        onProgress: renderProgress(session),
      });
      session.result(video, formatVideo(video));
    });
}
