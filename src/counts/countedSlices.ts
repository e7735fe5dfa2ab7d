import type { SliceKind } from './sortBuckets.ts';

export type CountedList = 'payments' | 'accounts' | 'events';

/**
 * The counted dimensions: the low-cardinality equality filters of the lists (and payments'
 * account). list_counts and list_buckets have one column of each (migration 0017); a slice holds
 * one value of each dimension it is narrowed by and '' (all) in the others. An event's type is
 * kept in `status`.
 */
export const DIMENSIONS = ['account_id', 'status', 'currency', 'card_brand'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** One slice: a value per dimension, '' for "all". */
export type SliceKey = Record<Dimension, string>;

/** What a list's records carry of each dimension it is counted by (the record's column). */
export const DIMENSION_COLUMN: Record<CountedList, Partial<Record<Dimension, string>>> = {
  payments: { account_id: 'account_id', status: 'status', currency: 'currency', card_brand: 'card_brand' },
  accounts: { status: 'status', currency: 'currency' },
  events: { status: 'type' },
};

/** The dimensions a list is counted by, in DIMENSIONS order. */
export function dimensionsOf(list: CountedList): Dimension[] {
  return DIMENSIONS.filter((d) => DIMENSION_COLUMN[list][d] !== undefined);
}

/** Every subset of `dims` (the empty one first). */
function subsets(dims: Dimension[]): Dimension[][] {
  const all: Dimension[][] = [[]];
  for (const d of dims) for (const s of all.slice()) all.push([...s, d]);
  return all;
}

/**
 * The one definition of what is counted: every write adjusts these slices (listCounts.ts), a
 * recount rebuilds them (recountTenant), and a list reads its total from them when its equality
 * filters name only counted dimensions (listing/listSlice.ts). Every combination of the
 * dimensions is kept: a write adds one more row per combination to one multi-row upsert
 * (docs/performance.md#counted-slices measured what that costs). Disjoint slices add up, so
 * any-of filters are sums.
 */
export const COUNTED_SLICES: Record<CountedList, readonly Dimension[][]> = {
  payments: subsets(dimensionsOf('payments')),
  accounts: subsets(dimensionsOf('accounts')),
  events: subsets(dimensionsOf('events')),
};

/** Whether a list keeps maintained counts at all (others are counted row by row). */
export function isCountedList(list: string): list is CountedList {
  return Object.hasOwn(COUNTED_SLICES, list);
}

/**
 * The slices of payments that bucket counts place pages in and total ranges of (listBuckets.ts),
 * each with the kind of bucket levels it keeps: the whole list, each single dimension (one
 * account's with coarse levels only), and the pairs of status, currency and card brand (issue 31
 * item 1), so that a list narrowed by two of them beside a created_at or amount range is totalled
 * and placed in O(buckets) rather than counted row by row (0.1–0.4 s at 1M). Each slice costs a
 * create 8 bucket rows (4 levels of each bucketed column) in the one upsert it writes anyway, and
 * a status change 16 per slice with the status in it; measured with the bench's writes scenario
 * (docs/performance.md, "Pairs of dimensions bucketed"): the three pairs together cost creates/s
 * PAIR_COST_MEASURED, so all three are kept. Pairs with the account are not: one account's list
 * has indexes of its own and few rows, and they would cost every create as much again. A triple
 * (status × currency × card brand) is not bucketed either: its range is counted in the status
 * index that carries the other two (leadDimension.ts, migration 0028/0029).
 */
export const BUCKETED_SLICES: ReadonlyArray<{ dims: readonly Dimension[]; kind: SliceKind }> = [
  { dims: [], kind: 'tenant' },
  { dims: ['status'], kind: 'tenant' },
  { dims: ['account_id'], kind: 'account' },
  { dims: ['currency'], kind: 'tenant' },
  { dims: ['card_brand'], kind: 'tenant' },
  { dims: ['status', 'currency'], kind: 'tenant' },
  { dims: ['status', 'card_brand'], kind: 'tenant' },
  { dims: ['currency', 'card_brand'], kind: 'tenant' },
];

/** The slice of `dims` that a record with these values lies in ('' in every other dimension). */
export function sliceKeyOf(values: Partial<SliceKey>, dims: readonly Dimension[]): SliceKey {
  const key: SliceKey = { account_id: '', status: '', currency: '', card_brand: '' };
  for (const d of dims) key[d] = values[d] ?? '';
  return key;
}

/** The bucket levels that cover a slice narrowed by exactly `dims`, or undefined when none do. */
export function bucketKindOf(list: CountedList, dims: readonly Dimension[]): SliceKind | undefined {
  if (list !== 'payments') return undefined;
  return BUCKETED_SLICES.find((s) => s.dims.length === dims.length && s.dims.every((d) => dims.includes(d)))?.kind;
}
