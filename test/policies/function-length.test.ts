/**
 * Functions short enough to read at once: no function, method, arrow function or function expression under src/ has a
 * body of more than 60 lines.
 */
import { describe, expect, it } from 'vitest';
import { formatLength, functionLengths } from '../../scripts/function-lengths.js';

const LIMIT = 60;
const all = functionLengths();
const overLimit = all.filter((f) => f.lines > LIMIT);

describe('the length of functions under src/', () => {
  it('finds the functions', () => {
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((f) => f.lines > 1)).toBe(true);
  });

  it(`keeps every body within ${LIMIT} lines`, () => {
    expect(overLimit.map(formatLength)).toEqual([]);
  });
});
