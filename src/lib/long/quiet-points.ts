/** Where to cut long audio, in whole units of the format (WAV: samples, MP3: frames): one set of rules, exact cuts. */
export interface CutLimits {
  max: number;
  /** Shortest segment, the last one included. At most half of `max`, so a valid plan always exists. */
  min: number;
  /** How far before each limit to look for a pause. */
  window: number;
  /** The billing increment, in units (not necessarily whole: MP3 frames); 0 when there is none to fit. */
  step: number;
  /** How much longer than its audio a segment's output may be billed, in units (see `OUTPUT_MARGIN_SECONDS`). */
  margin: number;
}

/** A stretch of the audio where a cut falls in a pause: any position from `from` to `to`, both included. */
export interface QuietSpan {
  from: number;
  to: number;
}

/**
 * Cut positions (between 0 and `total`, both excluded) such that every segment lasts `min` to `max`, each chosen by
 * {@link chooseCut} among the pauses `quiet(from, to)` finds in the search window before each limit.
 */
export async function planCuts(
  total: number,
  limits: CutLimits,
  quiet: (from: number, to: number) => Promise<readonly QuietSpan[]> | readonly QuietSpan[],
): Promise<number[]> {
  const cuts: number[] = [];
  for (let start = 0; total - start > limits.max; ) {
    const { from, to } = searchWindow(start, total, limits);
    const cut = chooseCut(start, total, limits, await quiet(from, to));
    cuts.push(cut);
    start = cut;
  }
  return cuts;
}

/**
 * The window of the cut after `start`: it ends at the limit (`max` after `start`, or earlier if the rest would
 * otherwise end up shorter than `min`) and begins `window` before it.
 */
export function searchWindow(start: number, total: number, limits: CutLimits): { from: number; to: number } {
  const to = Math.min(start + limits.max, total - limits.min);
  return { from: Math.max(start + limits.min, to - limits.window), to };
}

/**
 * The cut after `start`, within its search window, given the pauses found there (`quiet`). Billing first: the cut
 * goes just below a multiple of the step (less the output margin), at the multiple that leaves the whole run billed
 * least, and into a pause when one lies within reach below it (the reach being this cut's share of the run's
 * unbilled slack, so that no later segment crosses a step for it). Where no multiple fits the window (no step, or
 * one longer than the window allows), the cut goes into the latest pause, or at the limit when there is none.
 */
export function chooseCut(start: number, total: number, limits: CutLimits, quiet: readonly QuietSpan[]): number {
  const { from, to } = searchWindow(start, total, limits);
  const spans = quiet.filter((span) => span.to >= from && span.from <= to);
  const aligned = alignedTargets(start, total, limits, from, to);
  for (const target of aligned) {
    const reached = spans.filter((span) => span.to >= target.at - target.reach && span.from <= target.at);
    const latest = reached.at(-1);
    // The middle of the pause's reachable part: away from the sound at its edges, and still within reach.
    if (latest) return clampCut((Math.max(latest.from, target.at - target.reach) + Math.min(target.at, latest.to)) / 2, from, to);
  }
  const first = aligned[0];
  if (first) return clampCut(first.at, from, to);
  const latest = spans.at(-1);
  return latest ? clampCut((Math.max(from, latest.from) + Math.min(to, latest.to)) / 2, from, to) : to;
}

const clampCut = (at: number, from: number, to: number) => Math.min(to, Math.max(from, Math.floor(at)));

/**
 * The positions just below a multiple of the step after `start` that lie in the window and leave the whole run
 * billed least (by {@link restPlan} of the rest), longest first, each with how far below it a pause may lie.
 */
function alignedTargets(start: number, total: number, limits: CutLimits, from: number, to: number) {
  const { step, margin } = limits;
  // A step under one unit (a sample, an MP3 frame) leaves nothing to fit.
  if (!(step >= 1)) return [];
  const targets: Array<{ at: number; cost: number; segments: number; reach: number }> = [];
  const top = Math.floor((to - start + margin) / step);
  // The latest multiples only: a step far shorter than the window makes many, and the latest bill as little.
  for (let k = top; k >= Math.max(1, top - MULTIPLES_TRIED + 1); k -= 1) {
    const at = Math.floor(start + k * step - margin);
    if (at < from) break;
    const rest = restPlan(total - at, limits);
    targets.push({ at, cost: k + rest.steps, segments: rest.segments, reach: rest.slack / rest.segments });
  }
  // Billed least first, then in the fewest jobs (each one a create, and creates are rate-limited).
  const least = Math.min(...targets.map((target) => target.cost));
  const fewest = Math.min(...targets.filter((target) => target.cost === least).map((target) => target.segments));
  return targets.filter((target) => target.cost === least && target.segments === fewest);
}

/** How many multiples of the step, latest first, a cut considers. */
const MULTIPLES_TRIED = 64;

/** Steps billed for `length` units of audio made as one segment, its output up to `margin` longer. */
const stepsOf = (length: number, limits: CutLimits) => Math.ceil((length + limits.margin) / limits.step - 1e-9);

/**
 * How audio of `length` units is billed at best when cut into segments just below the longest multiple of the step
 * that `max` allows: its steps, its segments, and the slack (units a cut may move earlier without a step more).
 */
function restPlan(length: number, limits: CutLimits): { steps: number; segments: number; slack: number } {
  const longest = Math.floor((limits.max + limits.margin) / limits.step) * limits.step - limits.margin;
  const segments = length <= limits.max || longest <= 0 ? 1 : Math.ceil(length / longest);
  const steps =
    segments === 1
      ? stepsOf(length, limits)
      : (segments - 1) * stepsOf(longest, limits) + stepsOf(length - (segments - 1) * longest, limits);
  return { steps, segments, slack: Math.max(0, steps * limits.step - length - segments * limits.margin) };
}

/**
 * Share of the mean energy under which a smoothed frame counts as a pause: 17 dB down. The fixtures' pauses (noise
 * 40 to 60 dB down) read under 0.1% of it, WAV or MP3; a single MP3 frame inside a word can read 1%, which the
 * smoothing lifts well over this.
 */
const QUIET_SHARE = 0.02;

/**
 * The pauses among `energies` (one value per short frame, e.g. mean square over 20 ms), as runs of frame indices:
 * frames whose moving average over `smoothing` frames is at most a fiftieth of the mean, so that a pause counts
 * and a short dip inside a word does not. Steady sound (a tone, music) has none; digital silence is all pause.
 */
export function quietFrames(energies: ArrayLike<number>, smoothing = 1): QuietSpan[] {
  const n = energies.length;
  const half = Math.max(0, Math.floor(smoothing / 2));
  // A broken float sample (NaN, ±Infinity) counts as the loudest finite frame: never a pause, and the sums stay finite.
  let loudest = 0;
  for (let i = 0; i < n; i += 1) if (Number.isFinite(energies[i])) loudest = Math.max(loudest, energies[i] as number);
  const energy = (i: number) => (Number.isFinite(energies[i]) ? (energies[i] as number) : loudest);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) prefix[i + 1] = (prefix[i] as number) + energy(i);
  const threshold = (QUIET_SHARE * (prefix[n] as number)) / Math.max(1, n);
  const spans: QuietSpan[] = [];
  for (let i = 0; i < n; i += 1) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i + half + 1);
    if (((prefix[b] as number) - (prefix[a] as number)) / (b - a) > threshold) continue;
    const last = spans.at(-1);
    if (last && last.to === i - 1) last.to = i;
    else spans.push({ from: i, to: i });
  }
  return spans;
}
