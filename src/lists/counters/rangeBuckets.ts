import type { BucketLevel, BucketedColumn } from './sortBuckets.ts';

/**
 * Which buckets lie wholly inside a range of a bucketed column, so that a range's total is read
 * from bucket counts: a few dozen bucket rows at the coarsest levels that fit, plus the rows of
 * the (at most two) finest buckets the range only partly covers, counted by the range's own SQL
 * comparison. Pure: no I/O.
 */

/** One bound of a range, as parsed (lists/request/parseListQuery.ts): created_at as RFC 3339 text, amount as a number. */
export interface RangeBound {
  op: 'gte' | 'gt' | 'lte' | 'lt';
  value: string | number;
}

/** Consecutive buckets of one level: `from`…`to` inclusive (undefined: open at that end). */
export interface BucketSegment {
  level: number;
  from?: number;
  to?: number;
}

/**
 * The part of a range that whole finest buckets cover, as values: [low, high), each a finest
 * bucket edge (high undefined: open); low is never below 0.
 */
export interface CoveredRange {
  low: number;
  high?: number;
}

/** Digits past the millisecond that are not all 0: the bound lies strictly between two milliseconds. */
const PAST_MILLISECONDS = /T\d\d:\d\d:\d\d\.\d{3}(\d*[1-9]\d*)/;

/**
 * A time bound as (whole millisecond at or below it, whether it lies strictly past that
 * millisecond). Date.parse keeps milliseconds and drops finer digits, which for any time
 * 1970-or-later or earlier alike moves it down to the millisecond below (the fraction only adds).
 */
function timeBound(value: string): { ms: number; past: boolean } {
  return { ms: Date.parse(value), past: PAST_MILLISECONDS.test(value) };
}

/**
 * The values wholly inside a range, half-open in the column's scale (created_at in epoch ms, amount in minor
 * units), as predicates on a bucket's edges, `lowOk(low)` and `highOk(high)`, plus the values near which to look.
 * created_at is treated as real-valued (a stored time may carry finer digits than bucket edges), so a bucket is
 * inside only when every instant in it is; amount is an integer column, so `lte 999` takes every amount to 999.
 */
function edgesOf(column: BucketedColumn, bounds: RangeBound[]) {
  let lower: { at: number; inclusive: boolean } | undefined;
  let upper: number | undefined;
  for (const b of bounds) {
    if (column === 'amount') {
      const x = Number(b.value);
      // Integers: the first amount included (lower) or the first past the range (upper).
      if (b.op === 'gte' || b.op === 'gt') {
        const at = b.op === 'gte' ? Math.ceil(x) : Math.floor(x) + 1;
        if (!lower || at > lower.at) lower = { at, inclusive: true };
      } else {
        const at = b.op === 'lt' ? Math.ceil(x) : Math.floor(x) + 1;
        if (upper === undefined || at < upper) upper = at;
      }
      continue;
    }
    const { ms, past } = timeBound(String(b.value));
    if (b.op === 'gte' || b.op === 'gt') {
      // A bucket starting at `ms` is wholly ≥ the bound only when the bound is exactly `ms`; it is never wholly > it.
      const inclusive = b.op === 'gte' && !past;
      if (!lower || ms > lower.at || (ms === lower.at && !inclusive)) lower = { at: ms, inclusive };
    } else {
      // A bucket ending at `high` lies wholly below (or at) the bound only when high ≤ ms, whatever the op:
      // the instants just under `high` are past any bound below it, and a bucket is half-open.
      if (upper === undefined || ms < upper) upper = ms;
    }
  }
  return { lower, upper };
}

/** The finest buckets wholly inside the range, as a value interval (see CoveredRange); undefined when none are. */
export function coveredRange(column: BucketedColumn, levels: BucketLevel[], bounds: RangeBound[]): CoveredRange | undefined {
  const finest = levels[levels.length - 1];
  const { lower, upper } = edgesOf(column, bounds);
  // Below 0 (amounts below 0, instants before 1970) buckets are left out: SQL's integer division
  // truncates where JavaScript's floors, and amounts' buckets are not defined there. Any rows
  // there are edge rows, counted by the range's own SQL comparison.
  let low = 0;
  if (lower && lower.at >= 0) {
    const b = finest.of(lower.at);
    low = finest.low(b) === lower.at && lower.inclusive ? lower.at : finest.high(b);
  }
  const high = upper === undefined ? undefined : upper <= 0 ? 0 : finest.low(finest.of(upper));
  if (high !== undefined && low >= high) return undefined;
  return high === undefined ? { low } : { low, high };
}

/**
 * The covered range as the fewest bucket segments: at each level from the coarsest, the run of
 * its buckets wholly inside, and what is left at either side taken at the next finer level.
 * Every bucket of the result lies inside [low, high) and together they cover it exactly once
 * (the test holds this against brute force).
 */
export function bucketSegments(levels: BucketLevel[], covered: CoveredRange): BucketSegment[] {
  const out: BucketSegment[] = [];
  const walk = (i: number, low: number, high: number | undefined) => {
    if (high !== undefined && low >= high) return;
    const level = levels[i];
    if (i === levels.length - 1) {
      out.push(high === undefined ? { level: level.level, from: level.of(low) } : { level: level.level, from: level.of(low), to: level.of(high - 1) });
      return;
    }
    // The first and last buckets of this level wholly inside, if any.
    const first = level.of(low);
    const from = level.low(first) === low ? first : level.of(level.high(first));
    const innerLow = level.low(from);
    let to: number | undefined;
    let innerHigh: number | undefined;
    if (high !== undefined) {
      const last = level.of(high - 1);
      if (level.high(last) === high) to = last;
      else if (level.low(last) > low) to = level.of(level.low(last) - 1);
      innerHigh = to === undefined ? undefined : level.high(to);
      if (to === undefined || innerHigh === undefined || innerLow >= innerHigh) {
        walk(i + 1, low, high);
        return;
      }
    }
    out.push(to === undefined ? { level: level.level, from } : { level: level.level, from, to });
    walk(i + 1, low, innerLow);
    if (high !== undefined) walk(i + 1, innerHigh as number, high);
  };
  walk(0, covered.low, covered.high);
  return out;
}
