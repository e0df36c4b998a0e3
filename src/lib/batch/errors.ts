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

/** `outputDir` cannot hold the batch's videos; found before any job was created, so nothing was paid for. */
export class BatchOutputError extends AvatarVideoError {
  override name = 'BatchOutputError';
  /** `output_not_folder`: something other than a folder is at that path; `output_not_writable`: it cannot be made or written to. */
  readonly code: 'output_not_folder' | 'output_not_writable';
  /** The absolute path of `outputDir`. */
  readonly path: string;

  constructor(code: BatchOutputError['code'], path: string, message: string, options?: { cause?: unknown }) {
    super(`${message}; nothing was created.`, options);
    this.code = code;
    this.path = path;
  }
}
