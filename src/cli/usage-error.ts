import { stat } from 'node:fs/promises';
import { type AvatarVideo, AvatarVideoError } from '../index.js';
import { shorten } from '../internal/shorten.js';

/**
 * One thing wrong with the command line or its inputs. `field` is the create parameter, when there is one. A problem
 * of a batch row has its `index` (and `key`): its message names the row and the column, so no flag goes before it.
 */
export type Problem = Omit<AvatarVideo.BatchProblem, 'index' | 'key'> & Partial<Pick<AvatarVideo.BatchProblem, 'index' | 'key'>>;

/** The command cannot run as given (exit code 2). Carries every problem found, not just the first. */
export class UsageError extends AvatarVideoError {
  override name = 'UsageError';

  constructor(readonly problems: Problem[]) {
    super(problems.map((problem) => problem.message).join('\n'));
  }
}

/**
 * Run independent checks and report every problem they find together, rather than making the user
 * fix one and run again to meet the next. Errors other than UsageError win as they are.
 */
export async function checkAll<T extends unknown[]>(...checks: { [K in keyof T]: () => Promise<T[K]> | T[K] }): Promise<T> {
  const outcomes = await Promise.allSettled(checks.map(async (check) => check()));
  const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  const other = failures.find((reason) => !(reason instanceof UsageError));
  if (other !== undefined) throw other;
  if (failures.length > 0) throw new UsageError(failures.flatMap((reason) => (reason as UsageError).problems));
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as T;
}

/** Why a file named on the command line cannot be read, in words for its author. */
export function unreadable(error: unknown, path: string): string {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
    ? `${shorten(path)} does not exist`
    : `cannot read ${shorten(path)}: ${shorten((error as Error).message)}`;
}

/** Why `path` cannot be read as a file (it does not exist, it is a folder...); undefined when it can. */
export function fileProblem(path: string): Promise<string | undefined> {
  return stat(path).then(
    (info) => (info.isFile() ? undefined : `${shorten(path)} is not a file`),
    (error: unknown) => unreadable(error, path),
  );
}
