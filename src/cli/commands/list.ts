import type { Command } from 'commander';
import type { Video } from '../../index.js';
import { formatVideoTable } from '../format.js';
import { positiveInteger } from '../parse.js';
import type { Session } from '../session.js';

/** Page size asked for: the service takes 1 to 100 a page. Longer lists walk several pages. */
const MAX_PAGE = 100;

export function registerList(program: Command, session: Session): void {
  program
    .command('list')
    .description('list your videos, in the order the service returns them')
    .option('--limit <n>', 'show at most this many', positiveInteger, 20)
    .action(async (flags: { limit: number }) => {
      const videos: Video[] = [];
      const pages = session.client().videos.list({ limit: Math.min(flags.limit, MAX_PAGE) }, { signal: session.signal });
      for await (const video of pages) {
        videos.push(video);
        if (videos.length >= flags.limit) break;
      }
      session.result(videos, videos.length > 0 ? formatVideoTable(videos) : ['no videos']);
    });
}
