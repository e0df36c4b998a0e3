// The rate at which an account may create jobs, as users declare it: an option, `AVATAR_VIDEO_CREATE_RATE`, or the
// CLI's `--create-rate`, all in one shape and read by one parser.

/** Creates the account may make in any window of `windowSeconds` (the service publishes 2 a minute per organization). */
export interface CreateRate {
  /** Creates in one window: a whole number of at least 1. */
  limit: number;
  /** The window's length in seconds: more than 0. */
  windowSeconds: number;
}

/** The service's published rate for video generation: 2 creates a minute, per organization. */
export const PUBLISHED_CREATE_RATE: Readonly<CreateRate> = Object.freeze({ limit: 2, windowSeconds: 60 });

/** What a rate must be, for the messages that refuse one. */
export const CREATE_RATE_EXPECTED = '{ limit: a whole number of at least 1, windowSeconds: a number above 0 }';

/** Whether `value` is a usable {@link CreateRate}. */
export function isCreateRate(value: unknown): value is CreateRate {
  const rate = value as CreateRate | undefined;
  return (
    typeof rate === 'object' &&
    rate !== null &&
    Number.isSafeInteger(rate.limit) &&
    rate.limit >= 1 &&
    typeof rate.windowSeconds === 'number' &&
    Number.isFinite(rate.windowSeconds) &&
    rate.windowSeconds > 0
  );
}

/**
 * A rate written as `<limit>/<windowSeconds>` (`2/60`: two creates a minute), as `AVATAR_VIDEO_CREATE_RATE` and
 * `--create-rate` take it; undefined for text in any other form.
 */
export function parseCreateRate(text: string): CreateRate | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!match) return undefined;
  const rate = { limit: Number(match[1]), windowSeconds: Number(match[2]) };
  return isCreateRate(rate) ? rate : undefined;
}

/**
 * Seconds from the first create to the end of the last of `jobs` jobs when creates go out as fast as `rate` allows
 * (`limit` at once, then `limit` more each window) and each job takes `jobSeconds`: the least any run can take.
 */
export function earliestFinishSeconds(jobs: number, rate: CreateRate, jobSeconds: number): number {
  if (jobs <= 0) return 0;
  return (Math.ceil(jobs / rate.limit) - 1) * rate.windowSeconds + jobSeconds;
}

/**
 * Why `AVATAR_VIDEO_CREATE_RATE`'s `text` is refused, for whoever reads the variable (the clients, avatar-video/bullmq's
 * `workerOptions`) to throw with: one wording wherever it is read.
 */
export function createRateEnvProblem(text: string): string {
  return `AVATAR_VIDEO_CREATE_RATE must be creates per window as <creates>/<seconds>, e.g. 2/60 for two a minute; got ${JSON.stringify(text.slice(0, 40))}.`;
}
