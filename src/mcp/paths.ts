import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { checkOutputPath } from '../internal/output-path.js';

/** A path a tool refused, with the reason an agent can act on. */
export class PathRefusedError extends Error {
  constructor(
    readonly field: string,
    readonly code: 'not_local' | 'outside_roots' | 'not_found' | 'folder_missing' | 'not_a_file' | 'exists',
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'PathRefusedError';
  }
}

/** Whether `path` (real) is `root` (real) or inside it. */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real paths of the roots that exist (a root that does not exist admits nothing). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const real = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return real.filter((root): root is string => root !== undefined);
}

/** A local path as given: absolute, or relative to the first root; a URL or a `data:` string is refused. */
function localPath(field: string, raw: string, roots: readonly string[]): string {
  if (/^[a-z][a-z0-9+.-]+:/i.test(raw) && !/^[a-z]:[\\/]/i.test(raw)) {
    throw new PathRefusedError(field, 'not_local', 'give a local file path (no URL, no data: or base64 content)');
  }
  return resolve(roots[0] ?? process.cwd(), raw);
}

function outside(field: string, path: string, roots: readonly string[]): PathRefusedError {
  return new PathRefusedError(field, 'outside_roots', `${path} is outside the allowed roots (${roots.join(', ')})`);
}

/**
 * An input file admitted: its real path (symlinks followed) inside one of `roots` (real paths), and a regular file.
 * Nothing of the file is read before this passes.
 */
export async function admitInput(field: string, raw: string, roots: readonly string[]): Promise<string> {
  const given = localPath(field, raw, roots);
  const real = await realpath(given).catch(() => {
    throw new PathRefusedError(field, 'not_found', `${given} does not exist`);
  });
  if (!roots.some((root) => isInside(root, real))) throw outside(field, given === real ? given : `${given} (-> ${real})`, roots);
  if (!(await stat(real)).isFile()) throw new PathRefusedError(field, 'not_a_file', `${given} is not a file`);
  return real;
}

/**
 * Where an MP4 may be written: a path a file can have, its folder's real path inside `roots` and writable, the name
 * not a folder, not a symlink, and not an existing file unless `overwrite`. Gives the absolute path to write.
 * Everything a save would fail on is refused here, before a job is paid for, by the library's own check.
 * @throws PathRefusedError, or OutputPathError for a path no file can have (a NUL byte, a name too long...).
 */
export async function admitOutput(field: string, raw: string, roots: readonly string[], overwrite: boolean): Promise<string> {
  const given = localPath(field, raw, roots);
  const folder = await realpath(dirname(given)).catch(async () => {
    // Why it cannot be resolved (a folder missing, a NUL byte, a path too long) is the library's check's to say.
    await checkOutputPath(given);
    throw new PathRefusedError(field, 'folder_missing', `the folder ${dirname(given)} does not exist`);
  });
  const path = join(folder, basename(given));
  if (!roots.some((root) => isInside(root, path))) throw outside(field, given, roots);
  const existing = await lstat(path).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    // A name no file can have (a NUL byte, one too long): the library's check says why, as it does below.
    await checkOutputPath(path);
    throw new PathRefusedError(field, 'not_a_file', `${given} cannot be written (${error.code ?? error.message})`);
  });
  if (existing?.isSymbolicLink()) throw new PathRefusedError(field, 'not_a_file', `${given} is a symbolic link: name a plain file`);
  if (existing?.isDirectory()) throw new PathRefusedError(field, 'not_a_file', `${given} is a folder: name a file, e.g. video.mp4`);
  if (existing && !overwrite) {
    throw new PathRefusedError(
      field,
      'exists',
      `${path} already exists: pass overwrite: true to replace it, or choose another output_path`,
    );
  }
  // A folder the server may not write to, or a name too long for the save, fails here, as the library's generate does.
  return checkOutputPath(path);
}

/**
 * The size of the MP4 this process saved at `path`, when a file is still there, inside `roots` (real paths): a video
 * already on disk is pointed to, not downloaded again.
 */
export async function savedFileSize(path: string, roots: readonly string[]): Promise<number | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined || !roots.some((root) => isInside(root, real))) return undefined;
  const info = await stat(real).catch(() => undefined);
  return info?.isFile() && info.size > 0 ? info.size : undefined;
}

/** `raw` as the absolute path a tool would take it for (relative paths start at the first root), for comparing. */
export function givenPath(raw: string, roots: readonly string[]): string {
  return resolve(roots[0] ?? process.cwd(), raw);
}

/** The default MP4 beside the audio: `talk.wav` -> `talk.mp4`, never the audio itself (as the CLI names it). */
export function defaultOutputFor(audio: string): string {
  const stem = join(dirname(audio), basename(audio, extname(audio)));
  return resolve(`${stem}.mp4`) === resolve(audio) ? `${stem}-video.mp4` : `${stem}.mp4`;
}
