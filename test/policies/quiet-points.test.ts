import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCuts, quietestFrame } from '../../src/lib/long/quiet-points.js';

describe('planCuts', () => {
  it('keeps every segment within min..max whatever the quietest point says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 40, noNaN: true }), // total, in maxima
        fc.array(fc.double({ min: -1, max: 2, noNaN: true }), { minLength: 1, maxLength: 20 }),
        async (max, minShare, window, maxima, picks) => {
          const total = Math.round(maxima * max);
          const min = Math.max(1, Math.floor((max * minShare) / 200)); // min <= max / 2
          let call = 0;
          // The picker may answer anything, out of range included: the plan must clamp it.
          const cuts = await planCuts(
            total,
            { max, min, window },
            async (from, to) => from + (picks[call++ % picks.length] as number) * (to - from),
          );
          const bounds = [0, ...cuts, total];
          const lengths = bounds.slice(1).map((end, i) => end - (bounds[i] as number));
          if (total <= max) expect(cuts).toEqual([]);
          else for (const length of lengths) expect(length >= min && length <= max).toBe(true);
          expect(cuts.every(Number.isInteger)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('looks only in the window before each limit', async () => {
    const windows: Array<[number, number]> = [];
    await planCuts(250, { max: 100, min: 10, window: 20 }, async (from, to) => {
      windows.push([from, to]);
      return to;
    });
    expect(windows).toEqual([
      [80, 100],
      [180, 200],
    ]);
  });
});

describe('quietestFrame', () => {
  it('prefers a pause to a shorter, deeper dip, and the middle of a silent run', () => {
    const energies = [5, 5, 0.1, 5, 5, 1, 1, 1, 1, 1, 5, 5];
    expect(quietestFrame(energies, 1)).toBe(2);
    expect(quietestFrame(energies, 5)).toBe(7);
    expect(quietestFrame([3, 0, 0, 0, 0, 3, 0, 0, 0, 3], 1)).toBe(7);
  });

  it('ends on energies that are not numbers (NaN or infinite samples of a float WAV), never cutting at them', () => {
    expect(quietestFrame([Number.NaN, Number.NaN, Number.NaN], 1)).toBe(1);
    expect(quietestFrame([Number.NaN, 2, 0.5, Number.POSITIVE_INFINITY, 3], 1)).toBe(2);
    expect(quietestFrame([1, Number.NaN, 1, 0, 1], 1)).toBe(3);
  });
});
