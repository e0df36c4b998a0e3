import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Problem, UsageError } from './usage-error.js';

/**
 * Check where a command will save its MP4 before it spends anything: the folder must exist and be
 * writable, the path must not be a folder, and a file already there is replaced only with `--force`.
 * The SDK writes a temporary file beside the output and renames it, so the folder is what must be writable.
 * @throws UsageError naming the problem and what to do about it.
 */
export async function checkOutputFile(output: string, force: boolean): Promise<void> {
  const problem = await outputProblem(resolve(output), force);
  if (problem) throw new UsageError([problem]);
}

async function outputProblem(path: string, force: boolean): Promise<Problem | undefined> {
  const problem = (code: string, message: string): Problem => ({ code, message: `--output: ${message}` });
  const folder = dirname(path);
  const folderStat = await stat(folder).catch(() => undefined);
  if (!folderStat) return problem('output_folder_missing', `the folder ${folder} does not exist; create it first, or save elsewhere`);
  if (!folderStat.isDirectory()) return problem('output_folder_missing', `${folder} is not a folder`);
  const writable = await access(folder, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) return problem('output_folder_not_writable', `the folder ${folder} is not writable`);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory())
    return problem('output_is_folder', `${path} is a folder; give a file name, e.g. ${resolve(path, 'video.mp4')}`);
  if (existing && !force) return problem('output_exists', `${path} already exists; pass --force to replace it, or choose another name`);
  return undefined;
}
