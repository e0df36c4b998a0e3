import type { BatchItemResult, BatchProgress } from './types.js';

/**
 * Seconds until `remaining` items are finished, at the pace this run has kept so far: `finished` items
 * in `elapsedMs`. Undefined until an item has finished (there is no pace yet).
 */
export function estimateEta(finished: number, remaining: number, elapsedMs: number): number | undefined {
  if (finished <= 0) return undefined;
  if (remaining <= 0) return 0;
  return Math.round((remaining * elapsedMs) / finished / 1000);
}

/** The counts behind `onRunProgress`: items done, failed and running, and the pace of this run for the ETA. */
export class ProgressTally {
  readonly #started = performance.now();
  readonly #counts = { done: 0, failed: 0, running: 0 };
  /** Items finished by this run (skipped ones took no time, so they do not set the pace). */
  #finishedHere = 0;

  constructor(
    readonly total: number,
    readonly onProgress: ((progress: BatchProgress) => void) | undefined,
  ) {}

  running(delta: 1 | -1): void {
    this.#counts.running += delta;
    this.report();
  }

  finished(result: BatchItemResult): void {
    this.#counts[result.status === 'failed' ? 'failed' : 'done'] += 1;
    if (result.status !== 'skipped') this.#finishedHere += 1;
  }

  report(): void {
    const { done, failed, running } = this.#counts;
    const etaSeconds = estimateEta(this.#finishedHere, this.total - done - failed, performance.now() - this.#started);
    this.onProgress?.({ done, failed, running, total: this.total, etaSeconds });
  }
}
