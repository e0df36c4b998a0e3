/** One thing wrong with the command line or its inputs. `field` is the create parameter, when there is one. */
export interface Problem {
  field?: string;
  code: string;
  message: string;
}

/** The command cannot run as given (exit code 2). Carries every problem found, not just the first. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(problems.map((problem) => problem.message).join('\n'));
    this.problems = problems;
  }
}

/**
 * Run independent checks and report every problem they find together, rather than making the user
 * fix one and run again to meet the next. Errors other than UsageError win as they are.
 */
export async function checkAll<A, B>(first: () => Promise<A> | A, second: () => Promise<B> | B): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([(async () => first())(), (async () => second())()]);
  const failures = [a, b].flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  const other = failures.find((reason) => !(reason instanceof UsageError));
  if (other !== undefined) throw other;
  if (failures.length > 0) throw new UsageError(failures.flatMap((reason) => (reason as UsageError).problems));
  return [(a as PromiseFulfilledResult<A>).value, (b as PromiseFulfilledResult<B>).value];
}
