import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { AvatarVideo } from '../../index.js';
import { type MediaFlags, type WaitTimeoutFlags, waitTimeoutOf, withCreateRate, withMediaFlags, withWaitTimeout } from '../flags.js';
import { formatBytes, formatMedia, formatVideo } from '../format.js';
import { checkInputs, checkOutputFile } from '../inputs.js';
import { planLines } from '../plan-lines.js';
import type { Session } from '../session.js';
import { checkAll } from '../usage-error.js';
import { downloadProgress, longProgress, uploadProgress, watchJob } from '../watch.js';

/** The commands that take input files: generate, validate and create. */

export function registerGenerate(program: Command, session: Session): void {
  const command = withMediaFlags(program.command('generate'), 'driving audio: WAV or MP3, at least 1 s; over 60 s is made in segments')
    .description(
      'make a video: check the inputs, upload, wait for the job and save the MP4; audio over 60 s is made in segments and joined',
    )
    .option('-o, --output <file>', 'where to save the MP4 (default: the audio file name with .mp4, in the current folder)')
    .option('-f, --force', 'replace the output file if it exists (default: refuse, before uploading anything)')
    .option('--dry-run', 'check the inputs and print the plan (jobs, billed seconds, the earliest finish) without sending anything');
  withCreateRate(withWaitTimeout(command, 'a job')).action(async (flags: GenerateFlags) => {
    if (flags.dryRun) return planGenerate(flags, session);
    const output = flags.output ?? (flags.audio === undefined ? undefined : defaultOutput(flags.audio));
    session.force = flags.force === true;
    const waitTimeout = waitTimeoutOf(flags, (line) => session.warn(line));
    // Everything that could stop the run after the upload is checked before it: nothing is paid for in vain.
    const [inputs, client] = await checkAll(
      () => checkInputs(flags, { allowLongAudio: true, command: session.command }),
      () => session.client(),
      () => (output === undefined ? undefined : checkOutputFile(output, session.force)),
    );
    for (const warning of inputs.checked.warnings) session.warn(warning);
    const path = output as string; // set whenever --audio is, and checkInputs requires --audio
    if (inputs.long) {
      const options = { output: path, waitTimeout, signal: session.signal, onRunProgress: longProgress(session) };
      const made = await client.videos.generateLong(inputs.params, options);
      session.result(made, [
        `saved ${made.path} (${formatBytes(made.bytes)}, ${made.durationSeconds.toFixed(1)} s) from ${made.segments.length} segments`,
      ]);
      return;
    }
    // The job is tracked from the moment it exists (onCreated), so any failure or Ctrl-C after that names it and the
    // command that goes on with it.
    const watch = watchJob(session, path);
    const saved = await client.videos.generate(inputs.params, {
      output: path,
      waitTimeout,
      signal: session.signal,
      onCreated: watch,
      onProgress: watch,
      onUploadProgress: uploadProgress(session),
      onDownloadProgress: downloadProgress(session),
    });
    session.result(saved, [`saved ${saved.path} (${formatBytes(saved.bytes)}) from video ${saved.video.id}`]);
  });
}

type GenerateFlags = MediaFlags & WaitTimeoutFlags & { output?: string; force?: boolean; dryRun?: boolean };

/** `generate --dry-run`: the inputs checked as a real run checks them, then the plan of the video; nothing is sent. */
async function planGenerate(flags: GenerateFlags, session: Session): Promise<void> {
  const [inputs, client] = await checkAll(
    () => checkInputs(flags, { allowLongAudio: true, command: session.command }),
    () => session.client(),
  );
  for (const warning of inputs.checked.warnings) session.warn(warning);
  const plan = await client.videos.plan(inputs.params);
  const name = () => basename(flags.audio ?? 'audio');
  const problems = (item: AvatarVideo.PlannedItem) => item.problems.map((problem) => `${name()}: ${problem.message}`);
  session.result(plan, planLines(plan, name, problems));
}

/** `talk.wav` -> `./talk.mp4`; never the audio file itself, whatever it is named. */
function defaultOutput(audio: string): string {
  const name = `${basename(audio, extname(audio))}.mp4`;
  return resolve(name) === resolve(audio) ? `${basename(audio, extname(audio))}-video.mp4` : name;
}

export function registerValidate(program: Command, session: Session): void {
  withMediaFlags(program.command('validate'))
    .description('check inputs locally, as `create` would, and print what was found; sends nothing and needs no key')
    .action(async (flags: MediaFlags) => {
      const { checked } = await checkInputs(flags, { allowLongAudio: false, command: session.command });
      for (const warning of checked.warnings) session.warn(warning);
      session.result({ valid: true, ...checked }, [
        `audio   ${formatMedia(checked.audio)}`,
        `${checked.visual.kind.padEnd(8)}${formatMedia(checked.visual)}`,
        `mode    ${checked.generationMode}`,
        'ok: these inputs can be uploaded',
      ]);
    });
}

export function registerCreate(program: Command, session: Session): void {
  withMediaFlags(program.command('create'))
    .description('check the inputs locally, start a video job and print it without waiting')
    .addHelpText('after', `\nFollow up with \`${session.command} wait <id>\` and \`${session.command} download <id>\`.`)
    .action(async (flags: MediaFlags) => {
      const [inputs, client] = await checkAll(
        () => checkInputs(flags, { allowLongAudio: false, command: session.command }),
        () => session.client(),
      );
      for (const warning of inputs.checked.warnings) session.warn(warning);
      const video = await client.videos.create(inputs.params, { signal: session.signal, onUploadProgress: uploadProgress(session) });
      session.result(video, formatVideo(video));
    });
}
