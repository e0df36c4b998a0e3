import { describe, expect, it } from 'vitest';
import { estimateEta } from '../../src/lib/batch/progress.js';

describe('estimateEta (the batch ETA)', () => {
  it('has no answer before an item has finished', () => {
    expect(estimateEta(0, 10, 5_000)).toBeUndefined();
  });

  it('extends the pace of this run so far to the items left', () => {
    // 4 items in 20 s: 5 s an item, 6 left.
    expect(estimateEta(4, 6, 20_000)).toBe(30);
    expect(estimateEta(1, 3, 1_400)).toBe(4);
    // A faster pace, a shorter ETA.
    expect(estimateEta(8, 6, 20_000)).toBe(15);
  });

  it('is 0 once nothing is left', () => {
    expect(estimateEta(5, 0, 12_000)).toBe(0);
  });
});
