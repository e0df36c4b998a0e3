import { describe, expect, it } from 'vitest';
import { AvatarVideoError } from '../../src/errors.js';
import { apiPath } from '../../src/internal/path.js';

describe('apiPath', () => {
  it('percent-encodes each parameter as one segment', () => {
    expect(apiPath`v1/videos/${'a/b?c#d'}/content`).toBe('v1/videos/a%2Fb%3Fc%23d/content');
    expect(apiPath`v1/videos/${'%2e%2e'}`).toBe('v1/videos/%252e%252e');
    expect(apiPath`v1/videos/${'vid 1'}`).toBe('v1/videos/vid%201');
  });
  it.each(['', '.', '..'])('rejects %j', (id) => {
    expect(() => apiPath`v1/videos/${id}`).toThrow(AvatarVideoError);
  });
  it('rejects non-strings', () => {
    expect(() => apiPath`v1/videos/${42 as unknown as string}`).toThrow(/string/);
    expect(() => apiPath`v1/videos/${42 as unknown as string}`).toThrow(AvatarVideoError);
  });
});
