import type { Command } from 'commander';
import { formatBytes } from '../format.js';
import { checkOutputFile } from '../output-file.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { downloadProgress } from '../watch.js';

export function registerDownload(program: Command, session: Session): void {
  program
    .command('download')
    .description('save the MP4 of a COMPLETE video; an interrupted download leaves no partial file')
    .argument('<id>', 'video id')
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
      const progress = downloadProgress(session);
      const saved = await client.videos.download(id, output, {
        signal: session.signal,
        onProgress: (report) => {
          if (session.job?.status === undefined) session.track({ id, status: 'COMPLETE' }); // the file is flowing
          progress(report);
        },
      });
      session.result({ id, ...saved }, [`saved ${saved.path} (${formatBytes(saved.bytes)})`]);
    });
}
