import cliProgress from 'cli-progress';
import { formatBytes } from './format.js';

/** The stages of making a video, in the order they happen; `overall` is a long video's whole run. */
export type Phase = 'upload' | 'render' | 'download' | 'overall';

/** Progress of a command, on stderr so that stdout stays the result alone. */
export interface Progress {
  /** `phase` is at `value` of `total`: bytes for upload and download, percent (0-100) for render and overall. */
  update(phase: Phase, value: number, total: number | undefined, status?: string): void;
  /** A line of its own, printed above the bars rather than through them. */
  log(line: string): void;
  /**
   * Release the terminal, leaving the bars drawn as they last were, for good: a later update is dropped (an upload
   * still draining after the service refused it must not print below the final `error:` line). Safe to call twice.
   */
  stop(): void;
}

/** Bars on a terminal; elsewhere (CI logs, pipes, tests) plain lines at each tenth of the way. */
export function createProgress(stream: NodeJS.WriteStream): Progress {
  return stoppedForGood(stream.isTTY ? terminalProgress(stream) : plainProgress(stream));
}

/** `progress`, with every update after the first stop() dropped; lines still go out. */
function stoppedForGood(progress: Progress): Progress {
  let stopped = false;
  return {
    update: (...args) => {
      if (!stopped) progress.update(...args);
    },
    log: (line) => progress.log(line),
    stop: () => {
      stopped = true;
      progress.stop();
    },
  };
}

/** The text after the bar: the job's status for percentages, the byte counts for transfers. */
function describe(value: number, total: number | undefined, status: string | undefined): string {
  if (status !== undefined) return status;
  return total === undefined ? formatBytes(value) : `${formatBytes(value)} / ${formatBytes(total)}`;
}

function terminalProgress(stream: NodeJS.WriteStream): Progress {
  let bars: cliProgress.MultiBar | undefined;
  const byPhase = new Map<Phase, cliProgress.SingleBar>();
  return {
    update(phase, value, total, status) {
      bars ??= new cliProgress.MultiBar({
        stream,
        format: '{phase} [{bar}] {percentage}% | {detail}',
        barCompleteChar: '\u2588',
        barIncompleteChar: '\u2591',
        hideCursor: true,
        autopadding: true,
        // Ctrl-C is ours to handle: the command aborts, then stop() restores the cursor.
        gracefulExit: false,
      });
      // Without a known size the bar cannot show a share; it shows the bytes so far.
      const size = total ?? Math.max(value, 1);
      const payload = { phase: phase.padEnd(8), detail: describe(value, total, status) };
      const bar = byPhase.get(phase);
      if (bar) {
        bar.setTotal(size);
        bar.update(value, payload);
      } else {
        byPhase.set(phase, bars.create(size, value, payload));
      }
    },
    log(line) {
      if (bars) bars.log(`${line}\n`);
      else stream.write(`${line}\n`);
    },
    stop() {
      // A last redraw writes out log lines still buffered, which stop() alone would drop.
      bars?.update();
      bars?.stop();
      bars = undefined;
      byPhase.clear();
    },
  };
}

function plainProgress(stream: NodeJS.WriteStream): Progress {
  /** What was last printed per phase, so that a line appears only when something a reader cares about changed. */
  const printed = new Map<Phase, string>();
  return {
    update(phase, value, total, status) {
      const percent = total ? Math.floor((value / total) * 100) : undefined;
      // A job's every step is news (polls are seconds apart); a transfer or a long run, every tenth.
      const key = phase === 'render' ? `${status} ${value}` : `${status} ${percent === undefined ? '' : Math.floor(percent / 10)}`;
      if (printed.get(phase) === key) return;
      printed.set(phase, key);
      this.log(`${phase}: ${[percent === undefined ? '' : `${percent}%`, describe(value, total, status)].filter(Boolean).join(' ')}`);
    },
    log(line) {
      stream.write(`${line}\n`);
    },
    stop() {},
  };
}
