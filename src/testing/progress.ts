/**
 * How far a mock job has got. A real renderer does not advance at an even pace; SDK code that reads
 * `progress` (an ETA, progress-aware polling) needs a mock that can be uneven, yet repeatable.
 */

/** Accepts 0..1; anything else is a mistake in the test, said at once. */
export function checkNoise(noise: number): number {
  if (!(noise >= 0 && noise <= 1)) throw new RangeError(`progressNoise must be from 0 to 1, got ${noise}.`);
  return noise;
}

/**
 * Progress (0..1) of a job at `fraction` (elapsed / processing time, clamped to 0..1). With `noise` 0 it
 * is `fraction` itself. Otherwise a few slow and fast stretches are added: f + noise * sin(πkf) / (πk),
 * whose slope 1 + noise * cos(πkf) stays between 1 - noise and 1 + noise, so progress never goes back,
 * and which is 0 at the start and 1 at the end. k (1 to 4) and the sign come from the job index:
 * the same job is uneven the same way on every run.
 */
export function noisyProgress(fraction: number, noise: number, jobIndex: number): number {
  const f = Math.min(1, Math.max(0, fraction));
  if (noise === 0) return f;
  const k = 1 + (jobIndex % 4);
  const sign = Math.floor(jobIndex / 4) % 2 === 0 ? 1 : -1;
  const bent = f + (sign * noise * Math.sin(Math.PI * k * f)) / (Math.PI * k);
  return Math.min(1, Math.max(0, bent));
}
