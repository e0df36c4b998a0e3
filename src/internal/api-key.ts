import { AvatarVideoError } from '../errors.js';

/** A key read with a newline or a space in it (a file, a copied secret) is refused before it reaches a header. */
export function checkKeyCharacters(apiKey: string): void {
  if (/[\s\x00-\x1f\x7f]/.test(apiKey)) {
    throw new AvatarVideoError('The API key contains whitespace or control characters; check how it was read.');
  }
}
