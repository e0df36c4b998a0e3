import type { Command } from 'commander';

/** The file flags of `generate`, `create` and `validate`, and the create parameter each one fills. */
export const MEDIA_FLAGS = {
  audio: 'audio_reference',
  image: 'image_reference',
  video: 'video_reference',
} as const;

export interface MediaFlags {
  audio?: string;
  image?: string;
  video?: string;
  model?: string;
}

/** Problems are reported by flag (`--audio`), since that is what the user typed. */
export function flagFor(field: string): string {
  const entry = Object.entries(MEDIA_FLAGS).find(([, name]) => name === field);
  return entry ? `--${entry[0]}` : field === 'model' ? '--model' : field;
}

/** Add the input flags to a command. Exactly-one-of is checked by validation, which lists every problem at once. */
export function withMediaFlags(command: Command, audio = 'driving audio: WAV or MP3, 1 to 60 s'): Command {
  return command
    .option('--audio <file>', audio)
    .option('--image <file>', 'appearance image: JPEG or PNG (give this or --video)')
    .option('--video <file>', 'appearance video: MP4 or MOV, 10 to 60 s (a gated preview)')
    .option('--model <name>', 'model name, e.g. service-avatar-x (the service default) or service-video-1-latest');
}
