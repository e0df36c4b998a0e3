import { HEARTBEAT_MS, isDue, type JobSnapshot, nextProgress, PROGRESS_TOTAL, progressMessage, targetOf } from './progress-schedule.js';

/** Sends one notifications/progress; the tools wire it to the request's progressToken. */
export type SendProgress = (progress: number, total: number, message: string) => Promise<void>;

/**
 * The progress of one call, sent as progress-schedule.ts says: on each change of the job, and a heartbeat while it
 * stands still. `update` gives the job's state; `stop` ends it: a notification after the call's result names a token
 * the client has already forgotten, so nothing is sent once stopped, and `stop` waits for those on their way.
 */
export class ProgressReporter {
  #last: JobSnapshot | undefined;
  #progress: number | undefined;
  #sentAt = 0;
  #stopped = false;
  readonly #sending = new Set<Promise<void>>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly send: SendProgress,
    readonly log: (line: string) => void,
  ) {
    this.#timer = setInterval(() => this.#tick(), Math.ceil(HEARTBEAT_MS / 5));
    this.#timer.unref();
  }

  update(snapshot: JobSnapshot): void {
    if (isDue(this.#last, snapshot, Date.now() - this.#sentAt)) this.#send(snapshot);
    this.#last = snapshot;
  }

  /** Send nothing more; resolves once the notifications already on their way have been handed to the transport. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await Promise.all(this.#sending);
  }

  #tick(): void {
    if (this.#last && isDue(this.#last, this.#last, Date.now() - this.#sentAt)) this.#send(this.#last);
  }

  #send(snapshot: JobSnapshot): void {
    if (this.#stopped) return;
    const progress = nextProgress(this.#progress, targetOf(snapshot));
    if (this.#progress !== undefined && progress <= this.#progress) return;
    this.#progress = progress;
    this.#sentAt = Date.now();
    const sending = this.send(progress, PROGRESS_TOTAL, progressMessage(snapshot))
      .catch((error: unknown) => this.log(`progress notification not sent: ${String(error)}`))
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }
}
