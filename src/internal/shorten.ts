/** Longest path, URL or name a message quotes whole: past it, a message would grow with the user's input. */
export const MAX_QUOTED_CHARS = 200;

/**
 * A user's path, URL or file name as a message quotes it: whole up to {@link MAX_QUOTED_CHARS}, else its head and
 * its tail (where the file name is) around an ellipsis, so a 5,000-character path cannot make a 10 KB message.
 */
export function shorten(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  const tailLength = Math.floor((max - 1) / 2);
  // Never cut a character in two: a surrogate half at either cut goes.
  const head = text.slice(0, max - 1 - tailLength).replace(/[\uD800-\uDBFF]$/, '');
  const tail = text.slice(text.length - tailLength).replace(/^[\uDC00-\uDFFF]/, '');
  return `${head}…${tail}`;
}
