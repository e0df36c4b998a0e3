import { constants } from 'node:fs';
import { access, lstat, mkdir, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { OutputPathError, type OutputPathProblem } from '../errors.js';
import { tempPathFor } from './atomic-file.js';
import { shorten } from './shorten.js';

// Destinations are checked before a job is created: a job is paid for, so a save bound to fail must fail first.
// A download renames a temporary file into place, so the folder is what must be writable.

type Problem = [OutputPathProblem, string];

/**
 * Check that a file can be saved at `output`: a path a file can have (no NUL byte, a name the file system holds,
 * with the temporary file's beside it), its folder exists and is writable, and `output` is not a folder.
 * A file already there is allowed (downloads replace it only once the new one is complete).
 * @returns the absolute path.
 * @throws OutputPathError naming the problem.
 */
export async function checkOutputPath(output: string): Promise<string> {
  if (typeof output !== 'string' || output === '') {
    throw new OutputPathError(String(output), 'invalid', 'the output must be a file path (a non-empty string)');
  }
  if (output.includes('\0')) {
    throw new OutputPathError(output.replaceAll('\0', '\\0'), 'invalid', 'the path holds a NUL byte, which no file name can');
  }
  const path = resolve(output);
  const problem = (await folderProblem(dirname(path))) ?? (await fileProblem(path));
  if (problem) throw new OutputPathError(path, ...problem);
  return path;
}

/**
 * Make sure `folder` is a writable folder, creating it (and its parents) when missing.
 * @returns the absolute path, and the outermost folder this created (undefined when `folder` was there), for
 * removeCreatedFolders.
 * @throws OutputPathError naming the problem.
 */
export async function prepareOutputFolder(folder: string): Promise<{ path: string; created: string | undefined }> {
  const path = resolve(folder);
  const made = await mkdir(path, { recursive: true }).catch((error: Error) => error);
  const problem = await folderProblem(path);
  if (!problem) return { path, created: typeof made === 'string' ? made : undefined };
  // A folder that could not be made: say why (permissions, a file in the way) rather than that it is missing.
  const [code, reason] = problem;
  if (made instanceof Error && code === 'folder_missing') {
    throw new OutputPathError(path, code, `the folder could not be created (${shorten(made.message)})`, { cause: made });
  }
  throw new OutputPathError(path, code, reason);
}

/**
 * Undo prepareOutputFolder for a run that ended before writing anything: remove `path` and its parents up to
 * `created`, each only while empty. A folder that was there before is never touched, nor is anything put in one.
 */
export async function removeCreatedFolders(path: string, created: string): Promise<void> {
  for (let folder = path; ; folder = dirname(folder)) {
    const removed = await rmdir(folder).then(
      () => true,
      () => false,
    );
    if (!removed || folder === created || dirname(folder) === folder) return;
  }
}

async function folderProblem(folder: string): Promise<Problem | undefined> {
  const found = await stat(folder).catch(() => undefined);
  if (!found) return ['folder_missing', `the folder ${shorten(folder)} does not exist; create it first, or save elsewhere`];
  if (!found.isDirectory()) return ['not_a_folder', `${shorten(folder)} is a file, not a folder`];
  const writable = await access(folder, constants.W_OK | constants.X_OK)
    .then(() => true)
    .catch(() => false);
  return writable ? undefined : ['folder_not_writable', `the folder ${shorten(folder)} is not writable`];
}

/** The file's own problem: a folder there, or a name too long for the file system, its temporary file's included. */
async function fileProblem(path: string): Promise<Problem | undefined> {
  const code = (error: NodeJS.ErrnoException) => error.code;
  // The save writes `.<name>.<tag>.part` beside the file first (atomic-file.ts): the longer name must fit too.
  const temporary = tempPathFor(path);
  const [found, temporaryFound] = await Promise.all([stat(path).catch(code), lstat(temporary).catch(code)]);
  if (found === 'ENAMETOOLONG' || temporaryFound === 'ENAMETOOLONG') {
    const extra = Buffer.byteLength(basename(temporary)) - Buffer.byteLength(basename(path));
    return [
      'invalid',
      `the file name ${shorten(basename(path))} is too long for the file system (the save writes a temporary file beside it, ${extra} bytes longer); give a shorter name, e.g. video.mp4`,
    ];
  }
  return typeof found === 'object' && found.isDirectory()
    ? ['is_folder', `${shorten(path)} is a folder; give a file name, e.g. ${shorten(resolve(path, 'video.mp4'))}`]
    : undefined;
}
