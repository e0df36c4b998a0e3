import { AvatarVideoError } from '../../errors.js';

/** One thing wrong with a batch item, found before any job was created. */
export interface BatchProblem {
  /** Position of the item in the input, from 0. */
  index: number;
  /** The item's key, when it has a usable one. */
  key: string | undefined;
  /** The create parameter concerned, when there is one. */
  field?: string;
  code: string;
  message: string;
}

/** Some batch items are unusable; nothing was created. `problems` lists every one, not just the first. */
export class BatchInputError extends AvatarVideoError {
  override name = 'BatchInputError';
  readonly problems: BatchProblem[];

  constructor(problems: BatchProblem[]) {
    const shown = problems.slice(0, 20).map((p) => `- ${p.key !== undefined ? `${p.key}: ` : `item ${p.index}: `}${p.message}`);
    const more = problems.length > shown.length ? [`- and ${problems.length - shown.length} more`] : [];
    super(`${problems.length} problem(s) with the batch items; nothing was created:\n${[...shown, ...more].join('\n')}`);
    this.problems = problems;
  }
}
