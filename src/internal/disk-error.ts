import { AvatarVideoError } from '../errors.js';
import { shorten } from './shorten.js';

/**
 * A failure of the file system (a full or read-only disk, a folder that cannot be made) as an SDK error
 * that says what was being made, with the system error as `cause`. Any other error passes through.
 */
export function diskError(error: unknown, making: string): unknown {
  if (error instanceof AvatarVideoError || !(error instanceof Error) || !('syscall' in error)) return error;
  return new AvatarVideoError(`Could not save ${shorten(making)}: ${shorten(error.message)}`, { cause: error });
}
