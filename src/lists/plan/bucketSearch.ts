import type { BucketedColumn, SliceKind } from '../counters/sortBuckets.ts';
import type { AmountSliver } from './amountClassRanges.ts';
import type { ListSlice } from './listSlice.ts';

export interface BucketSearch {
  tenantId: string;
  slice: ListSlice;
  kind: SliceKind;
  column: BucketedColumn;
  direction: 'asc' | 'desc';
  /**
   * Counts in two dimensions (lists/counters/amountClassBuckets.ts): the created_at buckets of these
   * amount classes are summed rather than the column's own, so the descent places a row among
   * the slice's rows in an amount range made of whole classes, on the levels every one of the
   * classes is counted on (down to the hour, or to the day with a two-digit class among them).
   */
  sortKeys?: string[];
  /**
   * The counts are `column`'s own buckets less those of `sortKeys` (the classes outside the
   * range, when they are fewer than those inside: `gte 5000` is every class less the 55 below it,
   * not the 144 above): fewer index seeks on every level.
   */
  subtractKeys?: boolean;
  /**
   * An amount range whose ends are no class edges (amountClassRanges.ts): the rows of these slivers
   * of amounts, counted per bucket of the descent's finest level by `sliverRows`, are added to
   * (or taken from) the classes' counts on every level.
   */
  slivers?: AmountSliver[];
}
