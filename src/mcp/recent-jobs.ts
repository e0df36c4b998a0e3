/** A job this process created or followed, as get_video's description lists it. */
export interface RecentJob {
  id: string;
  status: string;
  /** ISO time this process last saw it. */
  seen: string;
}

/** How many saved paths and end estimates a process keeps (the oldest go first): far more than an agent's session makes. */
const KEPT = 500;

/** `map` with `key` set to `value` as its newest entry, its oldest dropped past `limit`. */
function keep<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > limit) map.delete(map.keys().next().value as string);
}

/**
 * The last jobs this process made or followed, newest first, so that an agent whose call was cancelled or cut off
 * finds its id again (get_video's description lists them; list_videos has every job of the account). Also what the
 * process knows of each beyond one call: where it saved a video's MP4, and when a wait last estimated a job would end.
 */
export class RecentJobs {
  readonly #jobs = new Map<string, RecentJob>();
  readonly #listeners = new Set<() => void>();
  readonly #saved = new Map<string, string>();
  readonly #finishAt = new Map<string, number>();

  constructor(readonly limit = 10) {}

  /** Record `id` as last seen in `status`; listeners hear of a new id or a new status. */
  note(id: string, status: string, now = new Date()): void {
    const before = this.#jobs.get(id);
    this.#jobs.delete(id);
    this.#jobs.set(id, { id, status, seen: now.toISOString() });
    while (this.#jobs.size > this.limit) this.#jobs.delete(this.#jobs.keys().next().value as string);
    if (before?.status !== status) for (const listener of this.#listeners) listener();
  }

  /** Record that this process saved video `id`'s MP4 at `path` (absolute). */
  noteSaved(id: string, path: string): void {
    keep(this.#saved, id, path, KEPT);
    this.note(id, 'COMPLETE (saved)');
  }

  /** Where this process last saved video `id`'s MP4, if it did. */
  savedPath(id: string): string | undefined {
    return this.#saved.get(id);
  }

  /** Record a wait's estimate that job `id` ends at `at` (epoch ms). */
  noteFinish(id: string, at: number): void {
    keep(this.#finishAt, id, at, KEPT);
  }

  /** When a wait of this process last estimated job `id` would end (epoch ms). */
  finishOf(id: string): number | undefined {
    return this.#finishAt.get(id);
  }

  list(): RecentJob[] {
    return [...this.#jobs.values()].reverse();
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
