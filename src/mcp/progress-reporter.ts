import { HEARTBEAT_MS, isDue, type JobSnapshot, nextProgress, PROGRESS_TOTAL, progressMessage, targetOf } from './progress-schedule.js';

/** Sends one notifications/progress; the tools wire it to the request's progressToken. */
export type SendProgress = (progress: number, total: number, message: string) => Promise<void>;

/**
 * The progress of one call, sent as progress-schedule.ts says: on each change of the job, and a heartbeat while it
 * stands still. `update` gives the job's state; `stop` ends the heartbeat.
 */
export class ProgressReporter {
  #last: JobSnapshot | undefined;
  #progress: number | undefined;
  #sentAt = 0;
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

  stop(): void {
    clearInterval(this.#timer);
  }

  #tick(): void {
    if (this.#last && isDue(this.#last, this.#last, Date.now() - this.#sentAt)) this.#send(this.#last);
  }

  #send(snapshot: JobSnapshot): void {
    const progress = nextProgress(this.#progress, targetOf(snapshot));
    if (this.#progress !== undefined && progress <= this.#progress) return;
    this.#progress = progress;
    this.#sentAt = Date.now();
    this.send(progress, PROGRESS_TOTAL, progressMessage(snapshot)).catch((error: unknown) =>
      this.log(`progress notification not sent: ${String(error)}`),
    );
  }
}
