import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Video, WaitProgress } from '../../index.js';
import { formatBytes } from '../format.js';
import { checkInputs, countUploads } from '../inputs.js';
import { generateLong } from '../long.js';
import { type MediaFlags, withMediaFlags } from '../media-flags.js';
import { checkOutputFile } from '../output-file.js';
import { secondsToMs } from '../parse.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { downloadProgress, renderProgress, uploadMeter } from '../watch.js';

interface GenerateFlags extends MediaFlags {
  output?: string;
  timeout?: number;
  force?: boolean;
}

export function registerGenerate(program: Command, session: Session): void {
  withMediaFlags(program.command('generate'), 'driving audio: WAV or MP3, at least 1 s; over 60 s is made in segments')
    .description(
      'make a video: check the inputs, upload, wait for the job and save the MP4; audio over 60 s is made in segments and joined',
    )
    .option('-o, --output <file>', 'where to save the MP4 (default: the audio file name with .mp4, in the current folder)')
    .option('-f, --force', 'replace the output file if it exists (default: refuse, before uploading anything)')
    .option('--timeout <seconds>', 'stop waiting for a job after this long; the job keeps running (default: 600)', secondsToMs)
    .action(async (flags: GenerateFlags) => {
      const output = flags.output ?? (flags.audio === undefined ? undefined : defaultOutput(flags.audio));
      session.force = flags.force === true;
      // Everything that could stop the run after the upload is checked before it: nothing is paid for in vain.
      const [inputs, client] = await checkAll(
        () => checkInputs(flags, { allowLongAudio: true }),
        () => session.client(),
        () => (output === undefined ? undefined : checkOutputFile(output, session.force)),
      );
      for (const warning of inputs.checked.warnings) session.warn(warning);
      const path = output as string; // set whenever --audio is, and checkInputs requires --audio
      if (inputs.long) {
        const made = await generateLong(client, inputs.params, { output: path, waitTimeout: flags.timeout }, session);
        session.result(made, [
          `saved ${made.path} (${formatBytes(made.bytes)}, ${made.durationSeconds.toFixed(1)} s) from ${made.segments.length} segments`,
        ]);
        return;
      }
      const render = renderProgress(session);
      // create + wait + download rather than videos.generate: the job is tracked from the moment it
      // exists, so any failure or Ctrl-C after that names it and the command that goes on with it.
      const video = await client.videos.createAndWait(await countUploads(inputs.params, uploadMeter(session)), {
        waitTimeout: flags.timeout,
        signal: session.signal,
        onProgress: (seen: Video, estimate: WaitProgress) => {
          session.track(seen, path);
          render(seen, estimate);
        },
      });
      const saved = await client.videos.download(video, path, { signal: session.signal, onProgress: downloadProgress(session) });
      session.result({ video, path: saved.path, bytes: saved.bytes }, [
        `saved ${saved.path} (${formatBytes(saved.bytes)}) from video ${video.id}`,
      ]);
    });
}

/** `talk.wav` -> `./talk.mp4`; never the audio file itself, whatever it is named. */
function defaultOutput(audio: string): string {
  const name = `${basename(audio, extname(audio))}.mp4`;
  return resolve(name) === resolve(audio) ? `${basename(audio, extname(audio))}-video.mp4` : name;
}
