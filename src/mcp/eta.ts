import type { RecentJobs } from './recent-jobs.js';

/**
 * The time left a call reports for a job: the wait's own estimate once this call's wait has made one (undefined then
 * means the job stands still or the estimate failed, as the wait says); before that, the end this process last
 * estimated for the job, counted down, since each call's wait starts its fit over from one poll. Undefined once that
 * end has passed: the job outlived it.
 */
export function carriedEta(own: number | undefined, ownMade: boolean, finishAt: number | undefined, now: number): number | undefined {
  if (own !== undefined || ownMade) return own;
  if (finishAt === undefined || finishAt <= now) return undefined;
  return Math.round((finishAt - now) / 100) / 10;
}

/** One call's estimates, kept for the process: the next call for the same job starts from the last one. */
export class CallEta {
  readonly #made = new Set<string>();

  constructor(private readonly recent: RecentJobs) {}

  /** The time left to report for job `id`, given the wait's own estimate `own` (seconds) seen now. */
  of(id: string, own: number | undefined, now = Date.now()): number | undefined {
    if (own !== undefined) {
      this.#made.add(id);
      this.recent.noteFinish(id, now + own * 1000);
    }
    return carriedEta(own, this.#made.has(id), this.recent.finishOf(id), now);
  }
}
