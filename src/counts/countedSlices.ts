import type { SliceKind } from './sortBuckets.ts';

export type CountedList = 'payments' | 'accounts' | 'events';

/** A slice of a list, by whether it is narrowed to one account and to one status (else: all). */
export interface SliceShape {
  byAccount: boolean;
  byStatus: boolean;
}

/**
 * The one definition of what is counted: every write adjusts these slices (listCounts.ts), a
 * recount rebuilds them (recountTenant), and a list reads its total from them when its filters
 * name nothing else (listing/listSlice.ts). Disjoint slices add up, so any-of filters are sums.
 */
export const COUNTED_SLICES: Record<CountedList, readonly SliceShape[]> = {
  payments: [
    { byAccount: false, byStatus: false },
    { byAccount: false, byStatus: true },
    { byAccount: true, byStatus: false },
    { byAccount: true, byStatus: true },
  ],
  accounts: [
    { byAccount: false, byStatus: false },
    { byAccount: false, byStatus: true },
  ],
  events: [
    { byAccount: false, byStatus: false },
    { byAccount: false, byStatus: true },
  ],
};

/** The column a list's counts are sliced by as their "status" (list_counts.status): an event's is its type. */
export const SLICE_COLUMN: Record<CountedList, string> = { payments: 'status', accounts: 'status', events: 'type' };

/** Whether a list keeps maintained counts at all (others are counted row by row). */
export function isCountedList(list: string): list is CountedList {
  return Object.hasOwn(COUNTED_SLICES, list);
}

/**
 * The slices of payments that bucket counts place pages in (listBuckets.ts), each with the kind
 * of bucket levels it keeps: the whole list, by status, and by account; not by both.
 */
export const BUCKETED_SLICES: ReadonlyArray<SliceShape & { kind: SliceKind }> = [
  { byAccount: false, byStatus: false, kind: 'tenant' },
  { byAccount: false, byStatus: true, kind: 'tenant' },
  { byAccount: true, byStatus: false, kind: 'account' },
];

/** Whether a list's counts can be narrowed to one account. */
export function countsByAccount(list: CountedList): boolean {
  return COUNTED_SLICES[list].some((s) => s.byAccount);
}

/** The bucket levels that cover a slice of this shape, or undefined when none do. */
export function bucketKindOf(list: CountedList, shape: SliceShape): SliceKind | undefined {
  if (list !== 'payments') return undefined;
  return BUCKETED_SLICES.find((s) => s.byAccount === shape.byAccount && s.byStatus === shape.byStatus)?.kind;
}
