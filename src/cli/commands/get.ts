import type { Command } from 'commander';
import { formatVideo } from '../format.js';
import type { Session } from '../session.js';

export function registerGet(program: Command, session: Session): void {
  program
    .command('get')
    .description("print a video job's current state")
    .argument('<id>', 'video id')
    .action(async (id: string) => {
      const video = await session.client().videos.retrieve(id, { signal: session.signal });
      session.result(video, formatVideo(video));
    });
}
