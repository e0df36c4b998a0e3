/** Where to cut long audio, in whole units of the format (WAV: samples, MP3: frames): one set of rules, exact cuts. */
export interface CutLimits {
  max: number;
  /** Shortest segment, the last one included. At most half of `max`, so a valid plan always exists. */
  min: number;
  /** How far before each limit to look for a pause. */
  window: number;
}

/**
 * Cut positions (between 0 and `total`, both excluded) such that every segment lasts `min` to `max`. Each cut is
 * `quietest(from, to)`, clamped to `[from, to]`, where `to` is the limit (`max` after the previous cut, or earlier if
 * the rest would otherwise end up shorter than `min`) and `from` is `window` before it.
 */
export async function planCuts(
  total: number,
  limits: CutLimits,
  quietest: (from: number, to: number) => Promise<number>,
): Promise<number[]> {
  const cuts: number[] = [];
  for (let start = 0; total - start > limits.max; ) {
    const to = Math.min(start + limits.max, total - limits.min);
    const from = Math.max(start + limits.min, to - limits.window);
    const cut = Math.min(to, Math.max(from, Math.round(await quietest(from, to))));
    cuts.push(cut);
    start = cut;
  }
  return cuts;
}

/**
 * Index of the quietest frame of `energies` (one value per short frame, e.g. mean square over 20 ms), after a moving
 * average over `smoothing` frames, so that a pause beats a short dip inside a word. Ties (digital silence) go to the
 * middle of the latest quietest run: segments stay long and the cut stays away from the edges of the pause.
 */
export function quietestFrame(energies: ArrayLike<number>, smoothing = 1): number {
  const n = energies.length;
  if (n === 0) return 0;
  const half = Math.max(0, Math.floor(smoothing / 2));
  // A broken float sample (NaN, ±Infinity) counts as the loudest finite frame: never a pause, and the sums stay finite.
  let loudest = 0;
  for (let i = 0; i < n; i += 1) if (Number.isFinite(energies[i])) loudest = Math.max(loudest, energies[i] as number);
  const energy = (i: number) => (Number.isFinite(energies[i]) ? (energies[i] as number) : loudest);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) prefix[i + 1] = (prefix[i] as number) + energy(i);
  const smoothed = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i + half + 1);
    smoothed[i] = ((prefix[b] as number) - (prefix[a] as number)) / (b - a);
  }
  let lowest = Number.POSITIVE_INFINITY;
  for (const value of smoothed) lowest = Math.min(lowest, value);
  const quiet = (i: number) => (smoothed[i] as number) <= lowest + lowest * 1e-9 + 1e-15;
  let end = n - 1;
  while (end > 0 && !quiet(end)) end -= 1;
  let begin = end;
  while (begin > 0 && quiet(begin - 1)) begin -= 1;
  return Math.floor((begin + end) / 2);
}
