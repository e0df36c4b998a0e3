/** A job this process created or followed, as get_video's description lists it. */
export interface RecentJob {
  id: string;
  status: string;
  /** ISO time this process last saw it. */
  seen: string;
}

/**
 * The last jobs this process made or followed, newest first, so that an agent whose call was cancelled or cut off
 * finds its id again (get_video's description lists them; list_videos has every job of the account).
 */
export class RecentJobs {
  readonly #jobs = new Map<string, RecentJob>();
  readonly #listeners = new Set<() => void>();

  constructor(readonly limit = 10) {}

  /** Record `id` as last seen in `status`; listeners hear of a new id or a new status. */
  note(id: string, status: string, now = new Date()): void {
    const before = this.#jobs.get(id);
    this.#jobs.delete(id);
    this.#jobs.set(id, { id, status, seen: now.toISOString() });
    while (this.#jobs.size > this.limit) this.#jobs.delete(this.#jobs.keys().next().value as string);
    if (before?.status !== status) for (const listener of this.#listeners) listener();
  }

  list(): RecentJob[] {
    return [...this.#jobs.values()].reverse();
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
