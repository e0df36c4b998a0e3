/** Longest key: leaves room for `.mp4` and a temporary suffix within common 255-byte name limits. */
const MAX_KEY_LENGTH = 128;
/** Letters, digits, `.`, `_` and `-`, not starting with a dot: a file name on every common file system. */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** Device names Windows reserves whatever the extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * Why `key` cannot name an output file, `<key>.mp4`, on every common file system; undefined when it can.
 * The rule of batch items, and of the jobs of `avatar-video/bullmq`.
 */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key === '') return 'has no key: each item needs a non-empty string key';
  if (key.length > MAX_KEY_LENGTH) return `key is ${key.length} characters long; at most ${MAX_KEY_LENGTH}`;
  const quoted = JSON.stringify(key);
  if (!SAFE_KEY.test(key)) return `key ${quoted} is not a safe file name: use letters, digits, '.', '_' and '-', not starting with '.'`;
  if (key.endsWith('.')) return `key ${quoted} ends with '.', which some file systems drop`;
  if (RESERVED.test(key)) return `key ${quoted} is a reserved device name on Windows`;
  return undefined;
}

/** File systems on macOS and Windows ignore case: `Intro` and `intro` name the same file there, so the same item. */
export const sameFileKey = (key: string): string => key.toLowerCase();
