import { APIError, VideoNotReadyError } from '../index.js';
import type { Failure, Session, TrackedJob } from './session.js';

/**
 * How the command was run (the session's flags, and the command as the user typed it: invocation.ts), so that the
 * suggested command reaches the same service the same way. `command` is `avatar-video` when not given.
 */
type ResumeContext = Partial<Pick<Session, 'baseUrl' | 'allowInsecureHttp' | 'force' | 'uploadSent' | 'command'>>;

/** A word for a POSIX shell: left bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An `avatar-video` command line with the global flags this run was given. */
function cliCommand(context: ResumeContext, ...words: string[]): string {
  const globals = [
    ...(context.baseUrl ? ['--base-url', shellWord(context.baseUrl)] : []),
    ...(context.allowInsecureHttp ? ['--allow-insecure-http'] : []),
  ];
  return [context.command ?? 'avatar-video', ...globals, ...words].join(' ');
}

/**
 * The command line that goes on with `job`: download it when COMPLETE (or not seen yet), else wait for it (then
 * download, when there is a file to save). Undefined when the job ended FAILED or CANCELLED: nothing to resume.
 */
export function resumeCommand(job: TrackedJob, context: ResumeContext = {}): string | undefined {
  if (job.status === 'FAILED' || job.status === 'CANCELLED') return undefined;
  const id = shellWord(job.id);
  const wait = cliCommand(context, 'wait', id);
  if (job.output === undefined) return wait;
  const download = cliCommand(context, 'download', id, '-o', shellWord(job.output), ...(context.force ? ['--force'] : []));
  return job.status === 'COMPLETE' || job.status === undefined ? download : `${wait} && ${download}`;
}

/** `failure` with more lines for a person and more fields in its `--json` error. */
function adding(failure: Failure, lines: string[], fields: Record<string, unknown>): Failure {
  return { ...failure, lines: [...failure.lines, ...lines], json: { error: { ...failure.json.error, ...fields } } };
}

/**
 * A run whose jobs are recorded in a manifest (`generate` of long audio, made in segments): the same command
 * again takes up every job already created and every segment already saved, so that command is the way to go on.
 */
export function withRerun(failure: Failure, words: string[], videoIds: string[], command = 'avatar-video'): Failure {
  const resume = [command, ...words.map(shellWord)].join(' ');
  const jobs = videoIds.length > 0 ? ` (${videoIds.join(', ')})` : '';
  const advice = failure.fix
    ? `the segments' jobs${jobs} are recorded beside the output; once that is fixed, this command goes on without paying for them again:`
    : `the segments' jobs${jobs} are recorded beside the output; to go on without paying for them again, run the same command:`;
  return adding(failure, [advice, `  ${resume}`], { videoIds, resume });
}

/**
 * Add to a failure the job's id and the command that goes on with it. Left as it is when there is no job, when
 * the job ended, or when the service does not know the id (404).
 */
export function withResume(failure: Failure, job: TrackedJob | undefined, error: unknown, context: ResumeContext = {}): Failure {
  if (!job && context.uploadSent && !(error instanceof APIError)) {
    // No answer came to a whole upload (Ctrl-C, a dropped connection, a timeout): the service may have made the job
    // all the same. Creates are never retried, so say where to look for it rather than to run again.
    const list = cliCommand(context, 'list');
    const advice = [
      'the upload had been sent, so the service may have created the job anyway (and charged for it); before running',
      `this again, look for it with \`${list}\`, then \`${cliCommand(context, 'wait', '<id>')}\` and \`${cliCommand(context, 'download', '<id>')}\``,
    ];
    return adding(failure, advice, { mayHaveCreatedJob: true, resume: list });
  }
  // A 404 before the job was ever seen: the service does not know this id (later, a 404 may be the file host's).
  if (!job || (job.status === undefined && error instanceof APIError && error.status === 404)) return failure;
  // `download` of a video not yet COMPLETE learns its status only from the error.
  if (error instanceof VideoNotReadyError) job = { ...job, status: error.video.status };
  const resume = resumeCommand(job, context);
  if (resume === undefined) return failure;
  // After a failure only a change can fix, the command is for once it is made: the same run again would fail alike.
  const then = failure.fix ? 'once that is fixed, ' : '';
  const state =
    job.status === undefined
      ? `${then}to try video ${job.id} again, run:`
      : job.status === 'COMPLETE'
        ? `video ${job.id} is COMPLETE on the service; ${then}to save it without paying again, run:`
        : `video ${job.id} keeps running on the service (it is paid for); ${then}to go on, run:`;
  return adding(failure, [state, `  ${resume}`], { videoId: job.id, resume });
}
