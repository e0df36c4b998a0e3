import type { Command } from 'commander';
import type { Video } from '../../index.js';
import { positiveInteger, videoId, type WaitTimeoutFlags, waitTimeoutOf, withWaitTimeout } from '../flags.js';
import { formatBytes, formatVideo, formatVideoTable } from '../format.js';
import { checkOutputFile } from '../inputs.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { downloadProgress, watchJob } from '../watch.js';

/** The commands on jobs already made, in the order `--help` lists them: get, wait, download, url and list. */
export function registerJobCommands(program: Command, session: Session): void {
  const byId = (name: string, description: string) =>
    program.command(name).description(description).argument('<id>', 'video id, as `create` or `list` printed it', videoId);

  byId('get', "print a video job's current state").action(async (id: string) => {
    const video = await session.client().videos.retrieve(id, { signal: session.signal });
    session.result(video, formatVideo(video));
  });

  withWaitTimeout(
    byId('wait', 'wait until a video job is COMPLETE, showing its progress; exit 1 if it fails or is cancelled'),
    'it',
  ).action(async (id: string, flags: WaitTimeoutFlags) => {
    // Tracked once seen: an id the service does not know gets no "to go on" advice.
    const waitTimeout = waitTimeoutOf(flags, (line) => session.warn(line));
    const options = { waitTimeout, signal: session.signal, onProgress: watchJob(session) };
    const video = await session.client().videos.waitForCompletion(id, options);
    session.result(video, formatVideo(video));
  });

  byId('download', 'save the MP4 of a COMPLETE video; an interrupted download leaves no partial file')
    .option('-o, --output <file>', 'where to save it (default: <id>.mp4 in the current folder)')
    .option('-f, --force', 'replace the output file if it exists (default: refuse)')
    .action(async (id: string, flags: { output?: string; force?: boolean }) => {
      // An id is not a path: keep a hostile one from choosing the folder.
      const output = flags.output ?? `${id.replace(/[^\w.-]/g, '_')}.mp4`;
      session.force = flags.force === true;
      const [client] = await checkAll(
        () => session.client(),
        () => checkOutputFile(output, session.force),
      );
      session.track({ id }, output);
      const saved = await client.videos.download(id, output, { signal: session.signal, onDownloadProgress: downloadProgress(session) });
      session.result({ id, ...saved }, [`saved ${saved.path} (${formatBytes(saved.bytes)})`]);
    });

  byId('url', "print the signed address of a finished video's file, without downloading it (a secret; it may expire)").action(
    async (id: string) => {
      const url = await session.client().videos.contentURL(id, { signal: session.signal });
      session.result({ id, url }, [url]);
    },
  );

  program
    .command('list')
    .description('list your videos, in the order the service returns them')
    .option('--limit <n>', 'show at most this many', positiveInteger, 20)
    .action(async (flags: { limit: number }) => {
      const videos: Video[] = [];
      // The service takes 1 to 100 a page; longer lists walk several pages.
      const pages = session.client().videos.list({ limit: Math.min(flags.limit, 100) }, { signal: session.signal });
      for await (const video of pages) {
        videos.push(video);
        if (videos.length >= flags.limit) break;
      }
      session.result(videos, videos.length > 0 ? formatVideoTable(videos) : ['no videos']);
    });
}
