/**
 * Seconds until `remaining` items are finished, at the pace this run has kept so far: `finished` items
 * in `elapsedMs`. Undefined until an item has finished (there is no pace yet).
 */
export function estimateEta(finished: number, remaining: number, elapsedMs: number): number | undefined {
  if (finished <= 0) return undefined;
  if (remaining <= 0) return 0;
  return Math.round((remaining * elapsedMs) / finished / 1000);
}
