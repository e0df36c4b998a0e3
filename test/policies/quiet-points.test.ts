import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseCut, planCuts, type QuietSpan, quietFrames } from '../../src/lib/long/quiet-points.js';
import { OUTPUT_MARGIN_SECONDS, type PlannedSegment, planSplit } from '../../src/lib/long/split-plan.js';

const lengthsOf = (cuts: number[], total: number) => {
  const bounds = [0, ...cuts, total];
  return bounds.slice(1).map((end, i) => end - (bounds[i] as number));
};

describe('planCuts', () => {
  it('keeps every segment within min..max whatever the pauses and the step', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 40, noNaN: true }), // total, in maxima
        fc.double({ min: 0, max: 3000, noNaN: true }), // the step, 0 for none
        fc.array(fc.tuple(fc.double({ min: -1, max: 2, noNaN: true }), fc.integer({ min: 0, max: 500 })), { maxLength: 20 }),
        async (max, minShare, window, maxima, step, picks) => {
          const total = Math.round(maxima * max);
          const min = Math.max(1, Math.floor((max * minShare) / 200)); // min <= max / 2
          let call = 0;
          // The finder may answer spans anywhere, out of the window included: the plan must clamp them.
          const cuts = await planCuts(total, { max, min, window, step, margin: Math.floor(step / 60) }, (from, to) => {
            const [share, width] = picks[call++ % Math.max(1, picks.length)] ?? [0, 0];
            const at = Math.round(from + share * (to - from));
            return picks.length === 0 ? [] : [{ from: at, to: at + width }];
          });
          const lengths = lengthsOf(cuts, total);
          if (total <= max) expect(cuts).toEqual([]);
          else for (const length of lengths) expect(length >= min && length <= max).toBe(true);
          expect(cuts.every(Number.isInteger)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('asks for the pauses of the window before each limit', async () => {
    const windows: Array<[number, number]> = [];
    await planCuts(250, { max: 100, min: 10, window: 20, step: 0, margin: 0 }, (from, to) => {
      windows.push([from, to]);
      return [];
    });
    expect(windows).toEqual([
      [80, 100],
      [180, 200],
    ]);
  });
});

describe('chooseCut', () => {
  // Seconds in tenths: max 20 s, min 1 s, window 10 s, step 6 s, margin 0.1 s.
  const limits = { max: 200, min: 10, window: 100, step: 60, margin: 1 };

  it('cuts just below the last multiple of the step when there is no pause', () => {
    expect(chooseCut(0, 950, limits, [])).toBe(179);
    expect(chooseCut(179, 950, limits, [])).toBe(358);
  });

  it('goes into a pause within reach below the multiple, and not to one out of reach', () => {
    // 95 s: billed 96 at best, so each of the five cuts may go only 0.4 s / 5 earlier without a step more.
    expect(chooseCut(0, 950, limits, [{ from: 170, to: 185 }])).toBe(178);
    expect(chooseCut(0, 950, limits, [{ from: 170, to: 178 }])).toBe(179);
    // 65 s with max 60: one cut, 0.8 s of slack for it alone; the 54 s multiple bills as little.
    const long = { ...limits, max: 600 };
    expect(chooseCut(0, 650, long, [{ from: 590, to: 592 }])).toBe(591);
    expect(chooseCut(0, 650, long, [{ from: 530, to: 535 }])).toBe(533);
    expect(chooseCut(0, 650, long, [{ from: 500, to: 520 }])).toBe(599);
  });

  it('without a step to fit, cuts in the middle of the latest pause of the window, or at the limit', () => {
    const none = { ...limits, step: 0 };
    expect(
      chooseCut(0, 950, none, [
        { from: 120, to: 130 },
        { from: 150, to: 160 },
      ]),
    ).toBe(155);
    expect(chooseCut(0, 950, none, [])).toBe(200);
  });

  it('leaves the last segment at least min long', () => {
    expect(chooseCut(0, 205, limits, [])).toBeLessThanOrEqual(195);
  });
});

describe('planSplit (the segments a split makes, for a plan)', () => {
  const billed = (segments: PlannedSegment[]) =>
    segments.reduce((sum, s) => sum + Math.ceil((s.endSeconds - s.startSeconds + OUTPUT_MARGIN_SECONDS) / 6 - 1e-9) * 6, 0);

  it('bills the whole audio rounded up to the step, as 95 s and 65 s of the issue show', async () => {
    const ninetyFive = await planSplit(95, [], { maxSegmentSeconds: 20 });
    expect(ninetyFive.map((s) => +(s.endSeconds - s.startSeconds).toFixed(3))).toEqual([17.9, 17.9, 17.9, 17.9, 17.9, 5.5]);
    expect(billed(ninetyFive)).toBe(96);
    expect(billed(await planSplit(65, [], { maxSegmentSeconds: 60 }))).toBe(66);
    expect(await planSplit(42, [], {})).toEqual([{ startSeconds: 0, endSeconds: 42 }]);
  });

  it('bills the same, in as many segments, wherever the pauses lie', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 61, max: 400, noNaN: true }),
        fc.integer({ min: 12, max: 60 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.1, max: 1, noNaN: true })), { maxLength: 60 }),
        async (seconds, maxSegmentSeconds, pauses) => {
          const quiet = pauses.map(([at, length]) => ({ startSeconds: at * seconds, endSeconds: at * seconds + length }));
          const plain = await planSplit(seconds, [], { maxSegmentSeconds });
          const paused = await planSplit(seconds, quiet, { maxSegmentSeconds });
          expect(paused).toHaveLength(plain.length);
          expect(billed(paused)).toBe(billed(plain));
          expect(paused.at(-1)?.endSeconds).toBeCloseTo(seconds, 2);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('quietFrames', () => {
  it('finds pauses 17 dB under the mean, after smoothing, and none in steady sound', () => {
    const energies = [5, 5, 0.05, 5, 5, 0, 0, 0, 0, 0, 5, 5];
    expect(quietFrames(energies, 1)).toEqual<QuietSpan[]>([
      { from: 2, to: 2 },
      { from: 5, to: 9 },
    ]);
    expect(quietFrames(energies, 3)).toEqual<QuietSpan[]>([{ from: 6, to: 8 }]);
    expect(quietFrames([3, 3.1, 2.9, 3], 1)).toEqual([]);
    expect(quietFrames([0, 0, 0], 1)).toEqual([{ from: 0, to: 2 }]);
  });

  it('counts energies that are not numbers (NaN or infinite samples of a float WAV) as the loudest frame', () => {
    expect(quietFrames([Number.NaN, Number.NaN, Number.NaN], 1)).toEqual([{ from: 0, to: 2 }]);
    expect(quietFrames([Number.NaN, 2, 0, Number.POSITIVE_INFINITY, 3], 1)).toEqual([{ from: 2, to: 2 }]);
  });
});
