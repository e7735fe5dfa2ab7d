/** A range filter's operator, as the lists take it (`filter[column][op]`). */
export type RangeOp = 'gte' | 'gt' | 'lte' | 'lt';

/** What each operator means, for the tests' oracles: value `v` against bound `b`. */
export const RANGE_HOLDS: Record<RangeOp, (v: number, b: number) => boolean> = {
  gte: (v, b) => v >= b,
  gt: (v, b) => v > b,
  lte: (v, b) => v <= b,
  lt: (v, b) => v < b,
};
