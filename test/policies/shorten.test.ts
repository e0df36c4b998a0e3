import { describe, expect, it } from 'vitest';
import { MAX_QUOTED_CHARS, shorten } from '../../src/internal/shorten.js';

describe('shorten: how messages quote a path, URL or name', () => {
  it('keeps text up to the limit whole', () => {
    const exact = 'a'.repeat(MAX_QUOTED_CHARS);
    expect(shorten(exact)).toBe(exact);
    expect(shorten('./speech.wav')).toBe('./speech.wav');
  });

  it('past it, keeps the head and the tail (the file name) around one ellipsis, at the limit', () => {
    const path = `/home/me/${'deep/'.repeat(1000)}speech.wav`;
    const short = shorten(path);
    expect(short).toHaveLength(MAX_QUOTED_CHARS);
    expect(short.split('…')).toHaveLength(2);
    const [head, tail] = short.split('…') as [string, string];
    expect(path.startsWith(head) && path.endsWith(tail)).toBe(true);
    expect(tail.endsWith('/speech.wav')).toBe(true);
    expect(shorten('0123456789', 5)).toBe('01…89');
  });

  it('never cuts a character made of two UTF-16 units in half', () => {
    const short = shorten('😀'.repeat(300));
    expect(short).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(short.length).toBeLessThanOrEqual(MAX_QUOTED_CHARS);
  });
});
