import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { countedSlice, type ListSlice } from './listSlice.ts';
import { rangedTotalOf, type RangedTotal } from './rangedTotal.ts';

/**
 * A list as its counts see it: a counted slice (its total from list_counts), a slice narrowed by
 * a range of a bucketed column (from bucket counts and the range's edge rows), or neither.
 */
export interface ListShape {
  readonly table: ListTable;
  readonly scope: ListScope;
  /** The query as the plan's statements write it: the same rows, the index chosen (rangePlans.ts, valuePlans.ts, leadDimension.ts). */
  readonly query: ListQuery;
  readonly slice?: ListSlice;
  readonly ranged?: RangedTotal;
}

export type RangedShape = ListShape & { readonly ranged: RangedTotal };

/** What a list's total and deep pages are found from: the counts of its slice, a range's bucket counts, or neither. */
export function listShapeOf(table: ListTable, scope: ListScope, query: ListQuery): ListShape {
  const slice = countedSlice(table, scope, query);
  if (slice) return { table, scope, query, slice };
  const ranged = rangedTotalOf(table, scope, query);
  return ranged ? { table, scope, query, ranged } : { table, scope, query };
}
