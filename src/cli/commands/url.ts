import type { Command } from 'commander';
import type { Session } from '../session.js';

export function registerUrl(program: Command, session: Session): void {
  program
    .command('url')
    .description("print the signed address of a finished video's file, without downloading it (a secret; it may expire)")
    .argument('<id>', 'video id')
    .action(async (id: string) => {
      const url = await session.client().videos.contentURL(id, { signal: session.signal });
      session.result({ id, url }, [url]);
    });
}
