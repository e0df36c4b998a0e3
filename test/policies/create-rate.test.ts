import { describe, expect, it } from 'vitest';
import { earliestFinishSeconds, isCreateRate, PUBLISHED_CREATE_RATE, parseCreateRate } from '../../src/internal/create-rate.js';

describe('create rate', () => {
  it('reads <limit>/<seconds> and nothing else', () => {
    expect(parseCreateRate('2/60')).toEqual({ limit: 2, windowSeconds: 60 });
    expect(parseCreateRate(' 10 / 1.5 ')).toEqual({ limit: 10, windowSeconds: 1.5 });
    for (const text of ['', '2', '0/60', '2/0', '-1/60', '2/60s', '1.5/60', 'two/60', '2/60/1']) {
      expect(parseCreateRate(text), text).toBeUndefined();
    }
    expect(isCreateRate({ limit: 2, windowSeconds: Number.POSITIVE_INFINITY })).toBe(false);
    expect(isCreateRate(PUBLISHED_CREATE_RATE)).toBe(true);
  });

  it('the earliest finish: a window per round of creates after the first, then one job', () => {
    expect(earliestFinishSeconds(8, { limit: 2, windowSeconds: 6 }, 2.5)).toBe(20.5);
    expect(earliestFinishSeconds(1, PUBLISHED_CREATE_RATE, 90)).toBe(90);
    expect(earliestFinishSeconds(3, PUBLISHED_CREATE_RATE, 90)).toBe(150);
    expect(earliestFinishSeconds(0, PUBLISHED_CREATE_RATE, 90)).toBe(0);
  });
});
