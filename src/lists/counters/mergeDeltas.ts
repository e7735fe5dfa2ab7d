/**
 * Deltas to counted rows, one per row key, zeros dropped, in key order: the one global order in
 * which every writer touches counted rows, so two concurrent transactions on PostgreSQL lock
 * them in the same order and cannot deadlock.
 */
export function mergeDeltas<D extends { delta: number }>(deltas: D[], keyOf: (d: D) => string): D[] {
  const merged = new Map<string, D>();
  for (const d of deltas) {
    const k = keyOf(d);
    const prior = merged.get(k);
    // A copy per key, added to in place: the caller's deltas stay as they were.
    if (prior) prior.delta += d.delta;
    else merged.set(k, { ...d });
  }
  return [...merged.entries()]
    .filter(([, d]) => d.delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => d);
}
