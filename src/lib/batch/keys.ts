/** Longest key: leaves room for `.mp4` and a temporary suffix within common 255-byte name limits. */
const MAX_KEY_LENGTH = 128;
/** Letters, digits, `.`, `_` and `-`, not starting with a dot: a file name on every common file system. */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** Device names Windows reserves whatever the extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Why `key` cannot name an output file, or undefined when it can. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key === '') return 'has no key: each item needs a non-empty string key';
  if (key.length > MAX_KEY_LENGTH) return `key is ${key.length} characters long; at most ${MAX_KEY_LENGTH}`;
  if (!SAFE_KEY.test(key)) {
    return `key ${JSON.stringify(key)} is not a safe file name: use letters, digits, '.', '_' and '-', not starting with '.'`;
  }
  if (key.endsWith('.')) return `key ${JSON.stringify(key)} ends with '.', which some file systems drop`;
  if (RESERVED.test(key)) return `key ${JSON.stringify(key)} is a reserved device name on Windows`;
  return undefined;
}

/**
 * The form two keys collide in: file systems on macOS and Windows ignore case, so `Intro` and
 * `intro` would be the same file there.
 */
export const keyIdentity = (key: string): string => key.toLowerCase();
