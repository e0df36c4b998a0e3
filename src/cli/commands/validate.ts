import type { Command } from 'commander';
import { formatMedia } from '../format.js';
import { checkInputs } from '../inputs.js';
import { type MediaFlags, withMediaFlags } from '../media-flags.js';
import type { Session } from '../session.js';

export function registerValidate(program: Command, session: Session): void {
  withMediaFlags(program.command('validate'))
    .description('check inputs locally, as `create` would, and print what was found; sends nothing and needs no key')
    .action(async (flags: MediaFlags) => {
      const { checked } = await checkInputs(flags, { allowLongAudio: false });
      for (const warning of checked.warnings) session.warn(warning);
      session.result({ valid: true, ...checked }, [
        `audio   ${formatMedia(checked.audio)}`,
        `${checked.visual.kind.padEnd(8)}${formatMedia(checked.visual)}`,
        `mode    ${checked.generationMode}`,
        'ok: these inputs can be uploaded',
      ]);
    });
}
