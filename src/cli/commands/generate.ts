import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { formatBytes } from '../format.js';
import { checkInputs, countUploads } from '../inputs.js';
import { generateLong } from '../long.js';
import { type MediaFlags, withMediaFlags } from '../media-flags.js';
import { secondsToMs } from '../parse.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { downloadProgress, renderProgress, uploadMeter } from '../watch.js';

interface GenerateFlags extends MediaFlags {
  output?: string;
  timeout?: number;
}

export function registerGenerate(program: Command, session: Session): void {
  withMediaFlags(program.command('generate'), 'driving audio: WAV or MP3, at least 1 s; over 60 s is made in segments')
    .description(
      'make a video: check the inputs, upload, wait for the job and save the MP4; audio over 60 s is made in segments and joined',
    )
    .option('-o, --output <file>', 'where to save the MP4 (default: the audio file name with .mp4, in the current folder)')
    .option('--timeout <seconds>', 'stop waiting for a job after this long (default: 600)', secondsToMs)
    .action(async (flags: GenerateFlags) => {
      const [inputs, client] = await checkAll(
        () => checkInputs(flags, { allowLongAudio: true }),
        () => session.client(),
      );
      for (const warning of inputs.checked.warnings) session.warn(warning);
      const output = flags.output ?? defaultOutput(flags.audio as string);
      if (inputs.long) {
        const made = await generateLong(client, inputs.params, { output, waitTimeout: flags.timeout }, session);
        session.result(made, [
          `saved ${made.path} (${formatBytes(made.bytes)}, ${made.durationSeconds.toFixed(1)} s) from ${made.segments.length} segments`,
        ]);
        return;
      }
      const made = await client.videos.generate(await countUploads(inputs.params, uploadMeter(session)), {
        output,
        waitTimeout: flags.timeout,
        signal: session.signal,
        onProgress: renderProgress(session),
        onDownloadProgress: downloadProgress(session),
      });
      session.result(made, [`saved ${made.path} (${formatBytes(made.bytes)}) from video ${made.video.id}`]);
    });
}

/** `talk.wav` -> `./talk.mp4`; never the audio file itself, whatever it is named. */
function defaultOutput(audio: string): string {
  const name = `${basename(audio, extname(audio))}.mp4`;
  return resolve(name) === resolve(audio) ? `${basename(audio, extname(audio))}-video.mp4` : name;
}
