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
 * The one definition of what is counted: writes adjust these slices (listCounts.ts), a recount rebuilds them, and
 * a list takes its total from them when its equality filters name only counted dimensions (plan/listSlice.ts).
 * Every combination is kept, so any filter of counted dimensions has exact, cheap totals; disjoint slices add up,
 * so any-of filters are sums (decision 0012).
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
 * Payments' bucketed slices (listBuckets.ts), each with its levels: the whole list and each dimension fine (one
 * account's coarse), and the pairs of status, currency and card brand coarse, so a pair beside a range is totalled
 * and placed from buckets rather than counted row by row; fine levels for pairs cost writes for no read gain
 * (decision 0031). Pairs with the account and the triple are counted in their own indexes (decisions 0012, 0029).
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
