import { bucketSegments, coveredRange, type BucketSegment } from '../counters/rangeBuckets.ts';
import { bucketLevels, isBucketed, type BucketedColumn, type SliceKind } from '../counters/sortBuckets.ts';
import { bucketSliceKind, slicedList, type ListSlice } from './listSlice.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import type { ListQuery } from '../request/parseListQuery.ts';

/**
 * How the total of a counted slice narrowed by a range of one bucketed column (created_at or
 * amount) is read without counting its rows: the bucket counts of the slice wholly inside the
 * range (`segments`, rangeBuckets.ts), plus the rows of the range below `low` and at or past
 * `high` (the two partly covered finest buckets at most), counted by the range's own SQL.
 */
export interface RangedTotal {
  slice: ListSlice;
  kind: SliceKind;
  column: BucketedColumn;
  segments: BucketSegment[];
  /** Where the covered buckets start and end, in the column's stored form (created_at as RFC 3339 text with milliseconds); high undefined: open. */
  low: string | number;
  high?: string | number;
  /** The slice's buckets below `low` (from 0) and from `high` on (none without it): where a deep page counts the slice's rows before the range. */
  below: BucketSegment[];
  above: BucketSegment[];
}

/** 10000-01-01T00:00:00Z: past the last instant a time filter takes (and PostgreSQL's ISO text of it has a sign). */
const PAST_LAST_INSTANT = 253_402_300_800_000;

function stored(column: BucketedColumn, value: number): string | number {
  return column === 'created_at' ? new Date(value).toISOString() : value;
}

/**
 * The ranged total of a list, when its equality filters name a bucketed slice and its ranges are
 * on one bucketed column and cover at least one finest bucket; undefined otherwise (then either
 * the slice's counts answer alone, or the rows are counted: a range inside two finest buckets
 * holds few rows).
 */
export function rangedTotalOf(table: ListTable, scope: ListScope, query: ListQuery): RangedTotal | undefined {
  const sliced = slicedList(table, scope, query);
  if (!sliced || sliced.ranges.length === 0) return undefined;
  const column = sliced.ranges[0].column;
  if (!isBucketed(column) || sliced.ranges.some((r) => r.column !== column)) return undefined;
  const kind = bucketSliceKind(table, sliced.slice);
  if (!kind) return undefined;
  const levels = bucketLevels(column, kind);
  const covered = coveredRange(column, levels, sliced.ranges);
  // A range starting in the very last finest bucket covers none: its few rows are counted.
  if (!covered || (column === 'created_at' && covered.low >= PAST_LAST_INSTANT)) return undefined;
  return {
    slice: sliced.slice,
    kind,
    column,
    segments: bucketSegments(levels, covered),
    // Open below: bucket 0 of any level starts at 0, and the buckets below it (if any row had a
    // value below 0) are then counted in the same run.
    below: covered.low > 0 ? bucketSegments(levels, { low: 0, high: covered.low }).map(({ from, ...rest }) => (from === 0 ? rest : { ...rest, from })) : [],
    above: covered.high === undefined ? [] : bucketSegments(levels, { low: covered.high }),
    low: stored(column, covered.low),
    ...(covered.high !== undefined ? { high: stored(column, covered.high) } : {}),
  };
}
