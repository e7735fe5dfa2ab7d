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
 * filters name only counted dimensions (lists/plan/listSlice.ts). Every combination of the
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
 * each with the kind of bucket levels it keeps: the whole list and each single dimension with
 * fine levels (one account's with coarse ones), and the pairs of status, currency and card brand
 * with coarse ones (issue 31 item 1): a list narrowed by two of them beside a created_at or amount
 * range is totalled and placed from its buckets rather than counted row by row (0.1–0.5 s at 1M).
 *
 * Why coarse (16 days and day; 1 and 2 leading digits), measured at 1M payments
 * (docs/performance.md, "Pairs of status, currency and card brand bucketed"): with the fine levels
 * a create writes 24 more bucket rows, its write statements did 0.82× the creates per CPU second
 * on SQLite (501 → 410), and list_buckets holds 3.1M more rows (the 5-minute and 4-digit buckets:
 * about one per payment and pair); with the coarse ones 12 rows, 0.87× (489 → 417), 66k rows. The
 * statements being a fifth to a third of a create, that is 3–5 % of creates/s (the service's own
 * rate could not show it under the machine's load), and page 1 and the page at 90 % of the lists
 * measured took the same time either way within that load's noise (a deep page skips at most one
 * day's or one 2-digit amount bucket's rows of the pair in its index). Pairs with the
 * account are not bucketed (one account's lists have indexes of their own), nor the triple of
 * status × currency × card brand: beside a range it is counted in the index of the one with a
 * single value, which carries the others (leadDimension.ts, valuePlans.ts; migrations 0028, 0029).
 */
export const BUCKETED_SLICES: ReadonlyArray<{ dims: readonly Dimension[]; kind: SliceKind }> = [
  { dims: [], kind: 'tenant' },
  { dims: ['status'], kind: 'tenant' },
  { dims: ['account_id'], kind: 'account' },
  { dims: ['currency'], kind: 'tenant' },
  { dims: ['card_brand'], kind: 'tenant' },
  { dims: ['status', 'currency'], kind: 'pair' },
  { dims: ['status', 'card_brand'], kind: 'pair' },
  { dims: ['currency', 'card_brand'], kind: 'pair' },
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
