import { stat } from 'node:fs/promises';
import { OutputPathError } from '../index.js';
import { checkOutputPath } from '../internal/output-path.js';
import { type Problem, UsageError } from './usage-error.js';

/**
 * Check where a command will save its MP4 before it spends anything: the SDK's destination check (the folder
 * exists and is writable, the path is not a folder), and a file already there is replaced only with `--force`.
 * @throws UsageError naming the problem and what to do about it.
 */
export async function checkOutputFile(output: string, force: boolean): Promise<void> {
  const problem = await outputProblem(output, force);
  if (problem) throw new UsageError([problem]);
}

async function outputProblem(output: string, force: boolean): Promise<Problem | undefined> {
  const problem = (code: string, message: string): Problem => ({ code, message: `--output: ${message}` });
  let path: string;
  try {
    path = await checkOutputPath(output);
  } catch (error) {
    if (error instanceof OutputPathError) return problem(`output_${error.code}`, error.reason);
    throw error;
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing && !force) return problem('output_exists', `${path} already exists; pass --force to replace it, or choose another name`);
  return undefined;
}
