import type { Command } from 'commander';
import { formatVideo } from '../format.js';
import { checkInputs, countUploads } from '../inputs.js';
import { type MediaFlags, withMediaFlags } from '../media-flags.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { uploadMeter } from '../watch.js';

export function registerCreate(program: Command, session: Session): void {
  withMediaFlags(program.command('create'))
    .description('check the inputs locally, start a video job and print it without waiting')
    .addHelpText('after', '\nFollow up with `avatar-video wait <id>` and `avatar-video download <id>`.')
    .action(async (flags: MediaFlags) => {
      const [inputs, client] = await checkAll(
        () => checkInputs(flags, { allowLongAudio: false }),
        () => session.client(),
      );
      for (const warning of inputs.checked.warnings) session.warn(warning);
      const params = await countUploads(inputs.params, uploadMeter(session));
      const video = await client.videos.create(params, { signal: session.signal });
      session.result(video, formatVideo(video));
    });
}
