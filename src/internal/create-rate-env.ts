import { InvalidArgumentError } from '../errors.js';
import { type CreateRate, createRateEnvProblem, parseCreateRate } from './create-rate.js';

/** `AVATAR_VIDEO_CREATE_RATE` read: undefined when unset; text in any other form than `2/60` is refused, not ignored. */
export function createRateFromEnv(text: string | undefined): CreateRate | undefined {
  if (text === undefined) return undefined;
  const rate = parseCreateRate(text);
  if (rate !== undefined) return rate;
  throw new InvalidArgumentError('createRate', createRateEnvProblem(text));
}
