import { AvatarVideoError } from '../../errors.js';

/**
 * {@link joinVideos} refused its inputs: a file is not a readable MP4 with a video track, or its tracks cannot share
 * one MP4 with the first input's without re-encoding (a different codec, size, sample rate, channel count or decoder
 * configuration). Nothing was written.
 */
export class JoinError extends AvatarVideoError {
  override name = 'JoinError';
  /** The input that could not be joined. */
  readonly file: string;
  /** Each difference from the first input, e.g. `video size: 720x1280 (first input: 1280x720)`. Empty for unreadable files. */
  readonly differences: string[];

  constructor(file: string, message: string, differences: string[] = []) {
    super(message);
    this.file = file;
    this.differences = differences;
  }
}
