import type { SliceKind } from '../counts/sortBuckets.ts';
import { bucketKindOf, countsByAccount, isCountedList, SLICE_COLUMN } from '../counts/countedSlices.ts';
import type { ListScope, ListTable } from './listScope.ts';
import type { ListQuery } from './parseListQuery.ts';

/** A list that maintained counts cover: any of these accounts and any of these statuses ('' = all). */
export interface ListSlice {
  accounts: string[];
  statuses: string[];
}

/**
 * The counted slice a list query asks for, when its only conditions are any-of filters on
 * status and (payments) account: list_counts holds every (account, status) pair, and disjoint
 * slices add up. Undefined for any other filter: such totals are counted row by row.
 */
export function countedSlice(table: ListTable, scope: ListScope, query: ListQuery): ListSlice | undefined {
  if (!isCountedList(table)) return undefined;
  let accounts = scope.accountId !== undefined ? [scope.accountId] : [''];
  let statuses = [''];
  for (const c of query.conditions) {
    if (c.match !== 'in') return undefined;
    if (c.column === SLICE_COLUMN[table] && statuses[0] === '') statuses = c.values;
    else if (c.column === 'account_id' && countsByAccount(table) && scope.accountId === undefined && accounts[0] === '') accounts = c.values;
    else return undefined;
  }
  return { accounts, statuses };
}

/** Which bucket counts cover a slice (countedSlices.ts: the whole list, by status, and by account; not both). */
export function bucketSliceKind(table: ListTable, slice: ListSlice): SliceKind | undefined {
  if (!isCountedList(table)) return undefined;
  return bucketKindOf(table, { byAccount: slice.accounts[0] !== '', byStatus: slice.statuses[0] !== '' });
}
