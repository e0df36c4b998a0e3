import { describe, expect, it } from 'vitest';
import { billedSeconds, planTotals } from '../../src/lib/plan/figures.js';

const assumes = {
  createRate: { limit: 2, windowSeconds: 60 },
  createRateSource: 'published' as const,
  jobSeconds: 60,
  jobSecondsSource: 'default' as const,
  billingIncrementSeconds: 6,
};

describe('billedSeconds', () => {
  it('rounds each job up to the billing step, as the service bills its output', () => {
    expect(billedSeconds(18.4, 6)).toBe(24);
    expect(billedSeconds(18, 6)).toBe(18);
    expect(billedSeconds(0.2, 6)).toBe(6);
    expect(billedSeconds(7.1, 6)).toBe(12);
    expect(billedSeconds(58, 6)).toBe(60);
    expect(billedSeconds(10, 4)).toBe(12);
  });

  it('bills nothing for no audio, and no extra step for a float sum a hair over a multiple', () => {
    expect(billedSeconds(0, 6)).toBe(0);
    expect(billedSeconds(0.1 + 0.2 + 11.7, 6)).toBe(12);
  });

  it("the issue's figures: 95 s as five 18.4 s segments and 3 s costs 126 s where 96 s suffices; 58.0 + 7.1 s costs 72 s", () => {
    expect(5 * billedSeconds(18.4, 6) + billedSeconds(3, 6)).toBe(126);
    expect(billedSeconds(95, 6)).toBe(96);
    expect(billedSeconds(58, 6) + billedSeconds(7.1, 6)).toBe(72);
  });
});

describe('planTotals', () => {
  it('sums jobs, audio and billed seconds; items with problems add nothing', () => {
    const items = [
      { jobs: 1, audioSeconds: 12, billedSeconds: 12 },
      { jobs: 0, audioSeconds: 30, billedSeconds: 0 },
      { jobs: 2, audioSeconds: 70, billedSeconds: 72 },
    ];
    expect(planTotals(items, assumes)).toEqual({ jobs: 3, audioSeconds: 82, billedSeconds: 84, earliestFinishSeconds: 60 + 60 });
  });

  it('finishes 8 jobs at 2 a minute in 3 windows and one job time; none at once', () => {
    const eight = Array.from({ length: 8 }, () => ({ jobs: 1, audioSeconds: 12, billedSeconds: 12 }));
    expect(planTotals(eight, assumes)).toMatchObject({ jobs: 8, billedSeconds: 96, earliestFinishSeconds: 3 * 60 + 60 });
    expect(planTotals([], assumes)).toEqual({ jobs: 0, audioSeconds: 0, billedSeconds: 0, earliestFinishSeconds: 0 });
  });
});
