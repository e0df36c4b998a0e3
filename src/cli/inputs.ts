import { stat } from 'node:fs/promises';
import { MediaValidationError, OutputPathError, type VideoCreateParams } from '../index.js';
import { checkOutputPath } from '../internal/output-path.js';
import { shorten } from '../internal/shorten.js';
import { validateForSegments } from '../lib/media/long-audio.js';
import type { ValidatedCreate } from '../media/index.js';
import { MEDIA_FLAGS, type MediaFlags, NAME_OF_FIELD } from './flags.js';
import { fileProblem, type Problem, UsageError } from './usage-error.js';

type CheckedInputs = { params: VideoCreateParams; checked: ValidatedCreate; long: boolean };

/**
 * Check the input flags locally, the way `videos.create` will, and report every problem at once: files that
 * cannot be read, and everything validation finds in the files that can. Gives the create parameters (holding
 * the paths), and whether the audio is longer than one job takes (only allowed when asked: `generate` makes
 * it in segments). `command` is the command as run (session.command), for the hint that names `generate`.
 * @throws UsageError listing each problem.
 */
export async function checkInputs(flags: MediaFlags, options: { allowLongAudio: boolean; command: string }): Promise<CheckedInputs> {
  const problems = flagProblems(flags);
  const params: Record<string, string> = {};
  for (const [flag, field] of Object.entries(MEDIA_FLAGS)) {
    const path = flags[flag as keyof typeof MEDIA_FLAGS];
    if (path === undefined) continue;
    const why = await fileProblem(path);
    if (why) problems.push({ field, code: 'unreadable_file', message: why });
    else params[field] = path;
  }
  if (flags.model !== undefined) params.model = flags.model;

  try {
    const create = params as unknown as VideoCreateParams;
    const hint = `\`${options.command} generate\` makes longer videos in segments`;
    const { checked, long } = await validateForSegments(create, { allowLong: options.allowLongAudio, hint });
    if (problems.length === 0) return { params: create, checked, long };
  } catch (error) {
    if (!(error instanceof MediaValidationError)) throw error;
    problems.push(...error.issues.filter((issue) => !STRUCTURAL.has(issue.code)));
  }
  throw new UsageError(problems.sort((a, b) => fieldRank(a.field) - fieldRank(b.field)));
}

/** Problems read best in the order of the flags: audio, then the visual reference, then the model. */
const FIELD_ORDER = Object.keys(NAME_OF_FIELD);
const fieldRank = (field = '') => (FIELD_ORDER.includes(field) ? FIELD_ORDER.indexOf(field) : FIELD_ORDER.length);

/** Which inputs were given is a matter of flags, so it is said in flags; validation's own wording names parameters. */
const STRUCTURAL = new Set(['missing_audio', 'missing_visual_reference', 'multiple_visual_references']);

function flagProblems(flags: MediaFlags): Problem[] {
  const problems: Problem[] = [];
  if (flags.audio === undefined) {
    problems.push({ field: 'audio_reference', code: 'missing_audio', message: 'missing: give the driving audio, a WAV or MP3 file' });
  }
  if (flags.image === undefined && flags.video === undefined) {
    problems.push({
      field: 'image_reference',
      code: 'missing_visual_reference',
      message: 'missing: give a portrait with --image (JPEG or PNG) or a video with --video (MP4 or MOV)',
    });
  }
  if (flags.image !== undefined && flags.video !== undefined) {
    problems.push({ field: 'video_reference', code: 'multiple_visual_references', message: 'give --image or --video, not both' });
  }
  return problems;
}

/**
 * Check where a command will save its MP4 before it spends anything: the SDK's destination check (the folder
 * exists and is writable, the path is not a folder), and a file already there is replaced only with `--force`.
 * @throws UsageError naming the problem and what to do about it.
 */
export async function checkOutputFile(output: string, force: boolean): Promise<void> {
  const problem = (code: string, message: string) => new UsageError([{ code, message: `--output: ${message}` }]);
  const path = await checkOutputPath(output).catch((error: unknown) => {
    throw error instanceof OutputPathError ? problem(`output_${error.code}`, error.reason) : error;
  });
  if (!force && (await stat(path).catch(() => undefined))) {
    throw problem('output_exists', `${shorten(path)} already exists; pass --force to replace it, or choose another name`);
  }
}
