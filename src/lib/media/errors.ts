import { AvatarVideoError } from '../../errors.js';
import type { MediaValidationIssue } from './types.js';

/**
 * Local checks found problems before anything was uploaded. `issues` lists every problem at once.
 * Not an `APIError`: no request was made.
 */
export class MediaValidationError extends AvatarVideoError {
  override name = 'MediaValidationError';
  readonly issues: MediaValidationIssue[];
  constructor(issues: MediaValidationIssue[]) {
    super(
      issues.length === 1
        ? (issues[0]?.message ?? 'Invalid media.')
        : `${issues.length} problems with the inputs:\n${issues.map((issue) => `- ${issue.message}`).join('\n')}`,
    );
    this.issues = issues;
  }
}
