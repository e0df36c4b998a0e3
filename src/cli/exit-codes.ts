/** Exit codes of the `avatar-video` command. Scripts branch on them, so they never change meaning. */
export const ExitCode = {
  ok: 0,
  /** The API, the network or the job failed. */
  failed: 1,
  /** The command line or the inputs were wrong; nothing was sent (or nothing could be). */
  usage: 2,
  /** Ctrl-C: 128 + SIGINT, as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
