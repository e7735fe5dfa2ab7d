import { amountClassSortKey } from '../counters/amountClassBuckets.ts';
import { isBucketed, type BucketedColumn, type SliceKind } from '../counters/sortBuckets.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import { amountClassPlanOfQuery, type AmountSliver } from './amountClassRanges.ts';
import { bucketSliceKind, narrowedDimensions, type ListSlice } from './listSlice.ts';
import type { ListShape } from './listShape.ts';
import { withoutRanges } from './rangePlans.ts';
import { totalOrder } from './totalOrder.ts';

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

/** A list's shape and the bucket counts that place its pages, in `query`'s order (either end); undefined when none do. */
export function bucketSearchOf(list: ListShape, query: ListQuery): BucketSearch | undefined {
  const [first] = query.sort;
  // A ranged list, sorted by the range's column in one direction: a run of its slice's rows, placed in the slice.
  if (list.ranged) {
    const { ranged } = list;
    const order = totalOrder(query.sort);
    if (!order.every((k) => k.direction === order[0].direction)) return undefined;
    if (first.column !== ranged.column) return amountClassSearchOf(list, query);
    return { tenantId: list.scope.tenantId, slice: ranged.slice, kind: ranged.kind, column: ranged.column, direction: first.direction };
  }
  const kind = list.slice && bucketSliceKind(list.table, list.slice);
  if (!list.slice || !kind || !isBucketed(first.column)) return undefined;
  return { tenantId: list.scope.tenantId, slice: list.slice, kind, column: first.column, direction: first.direction };
}

/**
 * An amount range sorted by created_at, on the whole list or one currency
 * (counters/amountClassBuckets.ts): its pages are placed by the created_at buckets of the nearest
 * run of classes, plus or less the rows of the slivers between its ends and the class edges
 * (none when its ends are edges: amountClassRanges.ts). Undefined for any other ranged list, or
 * a range narrower than its slivers (its pages go the row-by-row ways).
 */
function amountClassSearchOf(list: ListShape, query: ListQuery): BucketSearch | undefined {
  const { ranged } = list;
  const [first] = query.sort;
  if (ranged?.column !== 'amount' || first.column !== 'created_at' || ranged.kind !== 'tenant') return undefined;
  const narrowed = narrowedDimensions(ranged.slice);
  if (!(narrowed.length === 0 || (narrowed.length === 1 && narrowed[0] === 'currency' && ranged.slice.currency.length === 1))) return undefined;
  const run = amountClassPlanOfQuery(query);
  if (!run) return undefined;
  const { inside, outside, slivers } = run;
  // Whichever are fewer: the classes in the range, or created_at's own buckets less those outside it.
  const subtractKeys = outside.length + 1 < inside.length;
  return {
    tenantId: list.scope.tenantId,
    slice: ranged.slice,
    kind: ranged.kind,
    column: 'created_at',
    direction: first.direction,
    sortKeys: (subtractKeys ? outside : inside).map(amountClassSortKey),
    ...(subtractKeys ? { subtractKeys } : {}),
    ...(slivers.length ? { slivers } : {}),
  };
}

/** The list's rows in one amount sliver: its slice (the list's other conditions) and the sliver's amounts. */
export function inSliver(query: ListQuery, sliver: AmountSliver): ListQuery {
  const bounds: ListQuery['conditions'] = [];
  if (sliver.low !== undefined) bounds.push({ column: 'amount', match: 'range', op: 'gte', value: sliver.low });
  if (sliver.high !== undefined) bounds.push({ column: 'amount', match: 'range', op: 'lt', value: sliver.high });
  return { ...query, conditions: [...withoutRanges(query).conditions, ...bounds] };
}
