import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { BatchOutputError } from './errors.js';

/**
 * Make `dir` if need be and check that the batch can save there, before any job is created: a job whose video
 * cannot be saved would be paid for in vain.
 * @throws BatchOutputError when `dir` is not a folder, or cannot be made or written to.
 */
export async function prepareOutputDir(dir: string): Promise<void> {
  const failure = await mkdir(dir, { recursive: true }).then(
    () => undefined,
    (error: Error) => error,
  );
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) {
    throw new BatchOutputError('output_not_folder', dir, `outputDir ${dir} is a file, not a folder: give a folder for the videos`);
  }
  if (failure || !info) {
    throw new BatchOutputError('output_not_writable', dir, `outputDir ${dir} cannot be made (${failure?.message})`, { cause: failure });
  }
  // Creating files in a folder takes search (X) as well as write (W) permission.
  const writable = await access(dir, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) throw new BatchOutputError('output_not_writable', dir, `outputDir ${dir} is not writable`);
}
