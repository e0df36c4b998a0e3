/**
 * How the user ran the command, so that a suggested command line (`wait <id>`, `mock`) works when pasted into the
 * same shell: `npx avatar-video` when the command is not on that shell's PATH, else `avatar-video`.
 *
 * npm says it started us: `npx` and `npm exec` set `npm_command=exec`, an npm script sets `npm_command` (and
 * `npm_lifecycle_event`, as yarn and pnpm do too); a script's PATH holds node_modules/.bin, the user's shell does
 * not. Started by its path inside node_modules/.bin, the command is a local install, which `npx` finds too. A
 * global install (or any other start) leaves `avatar-video` on PATH.
 */
export function commandName(argv1: string | undefined, env: NodeJS.ProcessEnv): string {
  const viaPackageManager = Boolean(env.npm_command || env.npm_lifecycle_event);
  const localBin = /[\\/]node_modules[\\/]\.bin[\\/]/.test(argv1 ?? '');
  return viaPackageManager || localBin ? 'npx avatar-video' : 'avatar-video';
}
