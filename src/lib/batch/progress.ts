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

/**
 * The counts behind `onRunProgress`: items done, failed and running, and the pace of this run for the ETA. An item is
 * running from its first job's start to its end, counted once: through its download, its pauses between jobs, and
 * however many segments' jobs it has at once (a count of rows, not of jobs).
 */
export class ProgressTally {
  readonly #started = performance.now();
  readonly #counts = { done: 0, failed: 0, running: 0 };
  /** Keys of the items running. */
  readonly #inFlight = new Set<string>();
  /** Items finished by this run (skipped ones took no time, so they do not set the pace). */
  #finishedHere = 0;

  constructor(
    readonly total: number,
    readonly onProgress: ((progress: BatchProgress) => void) | undefined,
  ) {}

  /** The job runner's `onRunning` for the jobs of item `key`: the first job to start makes the item running. */
  jobsOf(key: string): (delta: 1 | -1) => void {
    return (delta) => {
      if (delta === -1 || this.#inFlight.has(key)) return;
      this.#inFlight.add(key);
      this.#counts.running += 1;
      this.report();
    };
  }

  finished(result: BatchItemResult): void {
    if (this.#inFlight.delete(result.key)) this.#counts.running -= 1;
    this.#counts[result.status === 'failed' ? 'failed' : 'done'] += 1;
    if (result.status !== 'skipped') this.#finishedHere += 1;
  }

  report(): void {
    const { done, failed, running } = this.#counts;
    const etaSeconds = estimateEta(this.#finishedHere, this.total - done - failed, performance.now() - this.#started);
    this.onProgress?.({ done, failed, running, total: this.total, etaSeconds });
  }
}
