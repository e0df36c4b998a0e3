import { expect, it } from 'vitest';
import { secondsLeft } from '../../src/cli/plan-lines.js';
import type { AvatarVideo } from '../../src/index.js';

const plan = { assumes: { createRate: { limit: 2, windowSeconds: 60 }, jobSeconds: 90 } } as AvatarVideo.VideoPlan;

it("the batch's time left: the plan's rate until the gate knows one, then the gate's, from its next create", () => {
  expect(secondsLeft(plan, 4)).toBe(150);
  const none: AvatarVideo.CreateRateState = { source: 'none', rate: undefined, waiting: 0, nextCreateAt: undefined };
  expect(secondsLeft(plan, 4, none)).toBe(150);
  const learned: AvatarVideo.CreateRateState = {
    source: 'learned',
    rate: { limit: 1, windowSeconds: 30 },
    waiting: 3,
    nextCreateAt: new Date(1_000_000 + 12_000),
  };
  expect(secondsLeft(plan, 4, learned, 1_000_000)).toBe(12 + 3 * 30 + 90);
  expect(secondsLeft(plan, 4, learned, 1_000_000 + 20_000)).toBe(3 * 30 + 90);
});
