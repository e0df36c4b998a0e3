import { InvalidArgumentError } from 'commander';

/** Option parser for a whole number >= 1; commander reports the error as a usage error. */
export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return number;
}

/** Option parser for a port number, 0 meaning "any free port". */
export function port(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65_535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return number;
}

/** Option parser for a duration given in seconds, returned in milliseconds (the SDK's unit). */
export function secondsToMs(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError('expected a number of seconds above 0.');
  return Math.round(seconds * 1000);
}
