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

/** The counts behind `onProgress`: items done, failed and running, and the pace of this run for the ETA. */
export class ProgressTally {
  readonly #total: number;
  readonly #onProgress: ((progress: BatchProgress) => void) | undefined;
  readonly #started = performance.now();
  #done = 0;
  #failed = 0;
  #running = 0;
  /** Items finished by this run (skipped ones took no time, so they do not set the pace). */
  #finishedHere = 0;

  constructor(total: number, onProgress: ((progress: BatchProgress) => void) | undefined) {
    this.#total = total;
    this.#onProgress = onProgress;
  }

  running(delta: 1 | -1): void {
    this.#running += delta;
    this.report();
  }

  finished(result: BatchItemResult): void {
    if (result.status === 'failed') this.#failed += 1;
    else this.#done += 1;
    if (result.status !== 'skipped') this.#finishedHere += 1;
  }

  report(): void {
    if (!this.#onProgress) return;
    const remaining = this.#total - this.#done - this.#failed;
    this.#onProgress({
      done: this.#done,
      failed: this.#failed,
      running: this.#running,
      total: this.#total,
      etaSeconds: estimateEta(this.#finishedHere, remaining, performance.now() - this.#started),
    });
  }
}
